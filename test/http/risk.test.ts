// The risk score over HTTP with the default policy, and the spec's documented velocity case: many
// different addresses from one IP within minutes are blocked with risk_level high.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { CREATED_TIME, VELOCITY_ANALYZED } from './contract.js';

let server: TestServer;

beforeAll(async () => {
  server = await startService();
});
afterAll(() => server.close());

function verify(project: CreatedProject, body: Record<string, unknown>): Promise<Reply> {
  return post(server.url, '/v1/public/verify', body, bearer(project.keys.access_token));
}

describe('risk score with the default policy', () => {
  it('blocks the fifth and sixth different address from one IP within minutes: risk_level high (the spec case)', async () => {
    const project = await server.createProject({ name: 'risk-velocity' });
    const ip = '198.51.100.60';
    const replies: Reply[] = [];
    for (let i = 1; i <= 6; i++) {
      replies.push(await verify(project, { email_address: `signup${i}@example.com`, ipv4_address: ip, show_results: true, show_steps: true }));
    }
    for (const reply of replies) expect(reply.status).toBe(200);
    // The third and fourth are challenged by ip_duplication (threshold 3 in total); risk is still 0.
    expect(replies.map((r) => r.body.action)).toEqual(['allow', 'allow', 'challenge', 'challenge', 'block', 'block']);
    expect(replies[3]?.body).toMatchObject({ risk_score: 0, risk_score_breakdown: {} });
    expect(replies[3]?.body).not.toHaveProperty('risk_level');

    const last = replies[5]?.body;
    expect(last).toMatchObject({
      action: 'block',
      has_multiple_emails_in_ip: true,
      warnings: ['multiple_accounts_detected', 'high_risk_score'],
      errors: [],
      risk_score: 60,
      risk_level: 'high',
      risk_score_breakdown: { high_velocity: 60 },
    });
    expect(last.analyzed_data).toMatchObject({
      total_email_in_ip: '6',
      emails_in_ip_last_5_minutes: '6',
      emails_in_ip_last_3_hour: '6',
      risk_breakdown_signals: 'high_velocity',
    });
    expect(last.analyzed_data).not.toHaveProperty('risk_breakdown_failures');
    for (const name of VELOCITY_ANALYZED) expect(last.analyzed_data).toHaveProperty(name);
    expect(last.analyzed_data.emails_in_ip).toHaveLength(6);
    for (const entry of last.analyzed_data.emails_in_ip) expect(entry.created_time).toMatch(CREATED_TIME);
    expect(last.steps).toEqual(expect.arrayContaining(['ip_duplication', 'risk_score']));
    expect(last.checked_types).toEqual(expect.arrayContaining(['multiple_emails_in_ip', 'risk_score']));
  });

  it('scores without an IP and says nothing about velocity: risk from the address alone', async () => {
    const project = await server.createProject({ name: 'risk-no-ip' });
    const reply = await verify(project, { email_address: 'x7kq2m9vz3p8@mailinator.com', show_results: true, show_steps: true });
    expect(reply.body).toMatchObject({
      action: 'block',
      has_multiple_emails_in_ip: null,
      risk_score: 60,
      risk_level: 'high',
      risk_score_breakdown: { disposable_domain: 40, fraud_pattern_detection: 20 },
    });
    expect(reply.body.analyzed_data.risk_breakdown_failures).toBe('disposable_domain:40,fraud_pattern_detection:20');
    expect(reply.body.analyzed_data).not.toHaveProperty('risk_breakdown_signals');
    expect(reply.body.steps).toContain('risk_score');
    for (const step of ['ip_duplication', 'ip_provider', 'vpn_ip']) expect(reply.body.steps).not.toContain(step);
  });

  it('adds the vpn signal for a VPN address (from the shipped lists), with the vpn_detected warning', async () => {
    const project = await server.createProject({ name: 'risk-vpn' });
    const reply = await verify(project, { email_address: 'jane.doe@example.com', ipv4_address: '2.26.157.10', show_results: true });
    expect(reply.body).toMatchObject({
      action: 'allow',
      warnings: ['vpn_detected'],
      risk_score: 25,
      risk_level: 'low',
      risk_score_breakdown: { vpn: 25 },
    });
    expect(reply.body.analyzed_data).toMatchObject({ vpn: 'detected', risk_breakdown_signals: 'vpn' });
  });

  it('returns the score and breakdown whenever risk scoring is enabled, show_results or not; the level only when risk is detected', async () => {
    const project = await server.createProject({ name: 'risk-quiet' });
    const clean = await verify(project, { email_address: 'jane.doe@example.com' });
    expect(clean.body).toMatchObject({ action: 'allow', risk_score: 0, risk_score_breakdown: {} });
    expect(clean.body).not.toHaveProperty('risk_level');
    expect(clean.body).not.toHaveProperty('analyzed_data');
    const vpn = await verify(project, { email_address: 'jane.doe@example.com', ipv4_address: '5.2.67.226', show_results: true });
    expect(vpn.body).toMatchObject({ risk_score: 25, risk_level: 'low', risk_score_breakdown: { vpn: 25 } });
    expect(vpn.body.analyzed_data).toMatchObject({ risk_score: '25', risk_level: 'low', risk_breakdown_signals: 'vpn' });
  });

  it('returns no risk field when the policy does not enable risk scoring', async () => {
    const project = await server.createProject({ name: 'risk-off', policyYaml: 'version: "1"\nchecks:\n  structure: { mode: hard, action: block }\n' });
    const reply = await verify(project, { email_address: 'jane.doe@example.com', ipv4_address: '5.2.67.226', show_results: true });
    expect(reply.status).toBe(200);
    for (const name of ['risk_score', 'risk_level', 'risk_score_breakdown']) expect(reply.body).not.toHaveProperty(name);
    expect(reply.body.analyzed_data).not.toHaveProperty('risk_score');
  });
});
