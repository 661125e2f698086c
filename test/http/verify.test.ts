// POST /v1/public/verify over HTTP against the real service: response shapes, stored events,
// policy behaviour and IP velocity.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import subdomain from '../../plugins/subdomain/index.js';
import velocity from '../../plugins/velocity/index.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { exposedAs } from '../../src/engine/catalog.js';
import type { Plugin } from '../../src/engine/plugin.js';
import { packageRoot } from '../../src/paths.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { ACTIONS, CHECKED_TYPES, CREATED_TIME, fixturePolicy, STEP_IDS, VELOCITY_ANALYZED } from './contract.js';

let server: TestServer;
let demo: CreatedProject;

beforeAll(async () => {
  server = await startService();
  demo = await server.createProject({ name: 'verify-demo' });
});
afterAll(() => server.close());

function verify(project: CreatedProject, body: Record<string, unknown>): Promise<Reply> {
  return post(server.url, '/v1/public/verify', body, bearer(project.keys.access_token));
}

function eventsOf(project: CreatedProject) {
  return server.service.store.knex('events').where({ project_id: project.project.id }).orderBy('id');
}

/** The classification flags of the default policy's enabled checks, for an ordinary address. */
const DEFAULT_FLAGS = {
  has_multiple_emails_in_ip: false,
  is_disposable_domain: false,
  is_education_domain: false,
  is_free_provider_domain: false,
  is_government_domain: false,
  is_known_abuse_domain: false,
  is_role_based_domain: false,
  is_spam_trap_domain: false,
};

describe('response shape', () => {
  it('answers only action (and the enabled flags) without show_results or show_steps', async () => {
    const res = await verify(demo, { email_address: 'jane.doe@example.com' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // No IP was sent: the velocity check could not run, so its flag says "not checked" (null), not false.
    // The default policy enables risk scoring: its score and breakdown are returned like the flags (no level at 0).
    expect(res.body).toEqual({ action: 'allow', ...DEFAULT_FLAGS, has_multiple_emails_in_ip: null, risk_score: 0, risk_score_breakdown: {} });
  });

  it('adds errors, warnings, checked_types and analyzed_data with show_results, and no steps', async () => {
    const res = await verify(demo, { email_address: 'jane+news@example.com', ipv4_address: '198.51.100.10', show_results: true });
    expect(res.status).toBe(200);
    // The default policy enables risk_score: its score and breakdown are returned (no level at score 0).
    expect(Object.keys(res.body).sort()).toEqual(
      ['action', 'analyzed_data', 'checked_types', 'errors', 'warnings', 'risk_score', 'risk_score_breakdown', ...Object.keys(DEFAULT_FLAGS)].sort(),
    );
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings: ['local_contains_plus_symbol'], ...DEFAULT_FLAGS });
    expect(res.body.checked_types).toContain('address_format');
    expect(res.body.checked_types).toContain('multiple_emails_in_ip');
    for (const type of res.body.checked_types) expect(CHECKED_TYPES, `checked type ${type}`).toContain(type);
    expect(new Set(res.body.checked_types).size).toBe(res.body.checked_types.length);
  });

  it("adds steps only with show_steps, each a spec step id or one of the policy's free rules", async () => {
    const res = await verify(demo, { email_address: 'jane@example.com', ipv4_address: '198.51.100.11', show_steps: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['action', 'steps', 'risk_score', 'risk_score_breakdown', ...Object.keys(DEFAULT_FLAGS)].sort());
    expect(res.body.steps).toEqual(expect.arrayContaining(['structure', 'local_plus', 'tld', 'ip_duplication']));
    // The default policy's one free rule ran (its facts were known): it is listed after the checks' steps.
    expect(res.body.steps.at(-1)).toBe('rule_typo_domain_on_the_disposable_list');
    for (const step of res.body.steps.slice(0, -1)) expect(STEP_IDS, `step ${step}`).toContain(step);
    // The default policy does not enable local_dot: its step is not reported as executed.
    expect(res.body.steps).not.toContain('local_dot');
  });

  it('lists no step and no checked type of a check that could not run: network checks are off here', async () => {
    const res = await verify(demo, { email_address: 'jane@example.com', ipv4_address: '198.51.100.13', show_steps: true, show_results: true });
    expect(res.status).toBe(200);
    // The default policy enables these network checks; with NETWORK_CHECKS=off they have nothing to tell.
    for (const step of ['mx_record', 'fallback_a_record', 'domain_age', 'domain_health', 'deliverability_score']) expect(res.body.steps).not.toContain(step);
    expect(res.body.checked_types).not.toContain('mx_record');
    // What did run is still listed.
    expect(res.body.steps).toEqual(expect.arrayContaining(['structure', 'tld', 'disposable_domain', 'ip_duplication']));
    expect(res.body.checked_types).toEqual(expect.arrayContaining(['address_format', 'disposable_domain', 'multiple_emails_in_ip']));
  });

  it('renders every analyzed_data scalar as a string; emails_in_ip is an array of {email_address (lower-cased), created_time}', async () => {
    const res = await verify(demo, { email_address: 'Jane.Doe+x@Example.COM', ipv4_address: '198.51.100.12', show_results: true });
    const analyzed = res.body.analyzed_data as Record<string, unknown>;
    expect(Object.keys(analyzed)).toEqual(expect.arrayContaining(VELOCITY_ANALYZED));
    for (const [name, value] of Object.entries(analyzed)) {
      if (name === 'emails_in_ip') continue;
      expect(typeof value, `analyzed_data.${name}`).toBe('string');
    }
    expect(analyzed.emails_in_ip).toEqual([{ email_address: 'jane.doe+x@example.com', created_time: expect.stringMatching(CREATED_TIME) }]);
    expect(analyzed.total_email_in_ip).toBe('1');
  });

  it("shows under analyzed_data exactly the enabled plugins' analyzed facts whose values are known", async () => {
    const analyzedOf = (plugin: Plugin) =>
      Object.keys(plugin.facts).filter((name) => {
        const spec = plugin.facts[name];
        return spec !== undefined && exposedAs(spec, 'analyzed_data');
      });
    const project = await server.createProject({
      name: 'analyzed-contract',
      policyYaml: 'version: "1"\nchecks:\n  local_plus: { mode: soft }\n  subdomain_single: { mode: soft }\n  ip_duplication: { mode: soft }\n',
    });
    const keysOf = async (body: Record<string, unknown>) => Object.keys((await verify(project, { ...body, show_results: true })).body.analyzed_data).sort();
    // local-part has no analyzed facts; dns has some, but no enabled check needs it.
    expect(await keysOf({ email_address: 'jane@mail.example.com', ipv4_address: '198.51.100.30' })).toEqual(
      [...analyzedOf(subdomain), ...analyzedOf(velocity)].sort(),
    );
    // Without an IP the velocity facts are unknown, and left out.
    expect(await keysOf({ email_address: 'jane@mail.example.com' })).toEqual(analyzedOf(subdomain).sort());
    // Without a domain the subdomain facts are unknown too.
    expect(await keysOf({ email_address: 'no-at-sign' })).toEqual([]);
  });

  it('blocks a broken address with invalid_address_format in errors', async () => {
    const res = await verify(demo, { email_address: 'jane.doe@@example.com', show_results: true });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('block');
    expect(res.body.errors).toContain('invalid_address_format');
    expect(ACTIONS).toContain(res.body.action);
  });

  it('reads an ideographic full stop in the domain as a dot (UTS #46): jane@日本語。jp is jane@xn--wgv71a119e.jp', async () => {
    const res = await verify(demo, { email_address: 'jane@日本語。jp', show_results: true });
    expect(res.status).toBe(200);
    expect(res.body.punycode_email).toBe('jane@xn--wgv71a119e.jp');
    expect(res.body.errors).toEqual([]);
    expect(res.body.warnings).toContain('email_is_internationalized');
    const [event] = await eventsOf(demo).where({ email: 'jane@日本語。jp' });
    expect(event?.action).toBe(res.body.action);
  });
});

describe('stored events', () => {
  it('stores one row per call (project, email, ipv4, action), committed before the response arrives', async () => {
    const project = await server.createProject({ name: 'events-rows' });
    const first = await verify(project, { email_address: 'Row.One@example.com', ipv4_address: '192.0.2.44' });
    // No flush, no wait: the row must already be there when the response has been read.
    expect(await eventsOf(project)).toEqual([
      expect.objectContaining({
        project_id: project.project.id,
        endpoint: 'verify',
        email: 'Row.One@example.com',
        ipv4: '192.0.2.44',
        ipv6: null,
        action: first.body.action,
        policy_revision: server.service.policies.byName('default')!.revision,
      }),
    ]);
    expect(first.body.action).toBeDefined();
    const second = await verify(project, { email_address: 'bad@@example.com' });
    expect(second.body.action).toBe('block');
    const rows = await eventsOf(project);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ email: 'bad@@example.com', ipv4: null, action: 'block' });
  });

  it('stores the canonical spelling of an IPv6 address', async () => {
    const project = await server.createProject({ name: 'events-v6' });
    await verify(project, { email_address: 'v6@example.com', ipv6_address: '2001:DB8:0:0::7' });
    expect(await eventsOf(project)).toEqual([expect.objectContaining({ ipv4: null, ipv6: '2001:db8::7', email: 'v6@example.com' })]);
  });

  it('still stores the event with soft_check', async () => {
    const project = await server.createProject({ name: 'events-soft' });
    const res = await verify(project, { email_address: 'soft@example.com', ipv4_address: '192.0.2.45', soft_check: true });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
    expect(await eventsOf(project)).toEqual([expect.objectContaining({ email: 'soft@example.com', ipv4: '192.0.2.45', action: 'allow' })]);
  });

  it('never writes a row for a refused request', async () => {
    const project = await server.createProject({ name: 'events-refused' });
    const res = await verify(project, { email_address: 'x@example.com', ipv4_address: '999.1.1.1' });
    expect(res.status).toBe(400);
    expect(await eventsOf(project)).toEqual([]);
  });
});

describe('policy behaviour', () => {
  let hard: CreatedProject;
  let soft: CreatedProject;

  beforeAll(async () => {
    hard = await server.createProject({ name: 'plus-hard', policyYaml: fixturePolicy('plus-hard') });
    soft = await server.createProject({ name: 'plus-soft', policyYaml: fixturePolicy('plus-soft') });
  });

  it('hard local_plus blocks a+b@example.com with local_contains_plus_symbol in errors', async () => {
    const res = await verify(hard, { email_address: 'a+b@example.com', show_results: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'block', errors: ['local_contains_plus_symbol'], warnings: [], checked_types: ['address_format'] });
  });

  it('soft local_plus allows a+b@example.com with the warning', async () => {
    const res = await verify(soft, { email_address: 'a+b@example.com', show_results: true });
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings: ['local_contains_plus_symbol'] });
  });

  it('the same policy allows an address without plus, with nothing in errors or warnings', async () => {
    const res = await verify(hard, { email_address: 'ab@example.com', show_results: true });
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });

  it('reports only the enabled check among the local-part steps', async () => {
    const res = await verify(hard, { email_address: 'a+b@example.com', show_steps: true });
    expect(res.body.steps).toContain('local_plus');
    expect(res.body.steps).not.toContain('local_dot');
    expect(res.body.steps).not.toContain('ip_duplication');
  });

  it('has no has_multiple_emails_in_ip flag when the policy does not enable the velocity check', async () => {
    const res = await verify(hard, { email_address: 'a@example.com', ipv4_address: '203.0.113.50', show_results: true });
    expect(res.body).not.toHaveProperty('has_multiple_emails_in_ip');
    expect(res.body.checked_types).not.toContain('multiple_emails_in_ip');
    for (const name of VELOCITY_ANALYZED) expect(res.body.analyzed_data).not.toHaveProperty(name);
  });

  it.each(['nothing', 'empty'])('a policy enabling nothing (%s) answers none', async (fixture) => {
    const project = await server.createProject({ name: `enables-${fixture}`, policyYaml: fixturePolicy(fixture) });
    const res = await verify(project, { email_address: 'a+b@example.com', show_results: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ action: 'none', errors: [], warnings: [], checked_types: [], analyzed_data: {} });
  });

  it('uses default_action when rules ran and none fired, the fired action otherwise', async () => {
    const project = await server.createProject({ name: 'review-default', policyYaml: fixturePolicy('review-by-default') });
    const quiet = await verify(project, { email_address: 'ab@example.com', show_results: true });
    expect(quiet.body).toMatchObject({ action: 'allow_with_review', errors: [], warnings: [] });
    const fired = await verify(project, { email_address: 'a+b@example.com', show_results: true });
    expect(fired.body).toMatchObject({ action: 'block', errors: ['local_contains_plus_symbol'] });
  });

  it('lets a partner through the checks its exemption names, and says so in steps', async () => {
    const { readFileSync } = await import('node:fs');
    const policyYaml = readFileSync(new URL('../../policies/b2b-only.yaml', import.meta.url), 'utf8');
    const project = await server.createProject({ name: 'b2b-exempt', policyYaml });
    const partner = await verify(project, { email_address: 'jane.doe@example.net', ipv4_address: '2.26.157.1', show_results: true, show_steps: true });
    expect(partner.status).toBe(200);
    expect(partner.body).toMatchObject({ action: 'allow', errors: [], warnings: [] });
    expect(partner.body.steps).toContain('vpn_ip');
    expect((partner.body.steps as string[]).at(-1)).toBe('exemption_partners');
    const stranger = await verify(project, { email_address: 'jane.doe@example.com', ipv4_address: '2.26.157.1', show_results: true, show_steps: true });
    expect(stranger.body).toMatchObject({ action: 'challenge', warnings: ['vpn_detected'] });
    expect(stranger.body.steps).not.toContain('exemption_partners');
  });

  it('names a free rule without a code (it may only allow): rule_<name> in warnings, and in steps when it ran', async () => {
    const policyYaml = [
      'version: "1.0"',
      'default_action: allow_with_review',
      'checks:',
      '  free_provider_domain: { mode: soft, action: none }',
      'rules:',
      '  - name: free-mailbox',
      '    conditions: { fact: is_free_provider_domain, operator: equal, value: true }',
      '    action: allow',
      '',
    ].join('\n');
    const project = await server.createProject({ name: 'codeless-rule', policyYaml });
    const fired = await verify(project, { email_address: 'jane@gmail.com', show_results: true, show_steps: true });
    expect(fired.body).toMatchObject({ action: 'allow', is_free_provider_domain: true, errors: [], warnings: ['rule_free_mailbox'] });
    expect(fired.body.steps).toEqual(['free_provider_domain', 'rule_free_mailbox']);
    const quiet = await verify(project, { email_address: 'jane@example.com', show_results: true, show_steps: true });
    expect(quiet.body).toMatchObject({ action: 'allow_with_review', errors: [], warnings: [], steps: ['free_provider_domain', 'rule_free_mailbox'] });
    // A rule whose facts are unknown did not run: an invalid address has no domain to classify.
    const unknown = await verify(project, { email_address: 'not-an-address', show_steps: true });
    expect(unknown.body.steps).not.toContain('rule_free_mailbox');
  });
});

describe('IP intelligence (default policy)', () => {
  it.each([
    ['an AWS IPv4', { ipv4_address: '3.5.140.1' }, { ipv4_provider: 'aws', vpn: 'none' }, ['common_provider_detected']],
    ['a Tor exit', { ipv4_address: '5.2.67.226' }, { ipv4_provider: 'unknown', vpn: 'detected' }, ['vpn_detected']],
    ['a Googlebot IPv6', { ipv6_address: '2001:4860:4801:10::1' }, { ipv6_provider: 'googlebot', vpn: 'none' }, ['common_provider_detected']],
    ['an IPv4-mapped IPv6 of AWS', { ipv6_address: '::ffff:3.5.140.1' }, { ipv6_provider: 'aws', vpn: 'none' }, ['common_provider_detected']],
    ['an address in no list', { ipv4_address: '192.0.2.1' }, { ipv4_provider: 'unknown', vpn: 'none' }, []],
  ])('%s: analyzed_data names the provider and VPN status, the warnings say so, the action stays allow', async (_label, ip, analyzed, warnings) => {
    const res = await verify(demo, { email_address: 'jane.doe@example.com', ...ip, show_results: true, show_steps: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings });
    expect(res.body.analyzed_data).toMatchObject(analyzed);
    expect(res.body.steps).toEqual(expect.arrayContaining(['ip_provider', 'vpn_ip']));
  });

  it('shows no provider or VPN field without an IP', async () => {
    const res = await verify(demo, { email_address: 'jane.doe@example.com', show_results: true });
    for (const name of ['ipv4_provider', 'ipv6_provider', 'vpn']) expect(res.body.analyzed_data).not.toHaveProperty(name);
    expect(res.body.warnings).toEqual([]);
  });
});

describe('IP network and country (a policy enabling hosting_network: strict-signup)', () => {
  let strict: CreatedProject;
  beforeAll(async () => {
    strict = await server.createProject({ name: 'network-strict', policyYaml: readFileSync(join(packageRoot, 'policies/strict-signup.yaml'), 'utf8') });
  });

  it('an AWS IPv4: analyzed_data names its AS, organisation and country, with the hosting warning', async () => {
    const res = await verify(strict, { email_address: 'jane.doe@example.com', ipv4_address: '3.5.140.1', show_results: true, show_steps: true });
    expect(res.status).toBe(200);
    expect(res.body.analyzed_data).toMatchObject({ ip_asn: '16509', ip_as_org: 'Amazon.com, Inc.', ip_country: 'KR', ip_network_type: 'hosting' });
    expect(res.body.warnings).toContain('hosting_network_detected');
    expect(res.body.steps).toContain('hosting_network');
  });

  it('a home connection: its network, no warning', async () => {
    const res = await verify(strict, { email_address: 'jane.doe@example.com', ipv4_address: '81.2.69.142', show_results: true });
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings: [] });
    expect(res.body.analyzed_data).toMatchObject({ ip_asn: '20712', ip_as_org: 'Andrews & Arnold Ltd', ip_country: 'GB', ip_network_type: 'other' });
  });

  it('a documentation address has no network, whatever the registry tables say of it (198.51.100.0/24 is AU there)', async () => {
    const res = await verify(strict, { email_address: 'jane.doe@example.com', ipv4_address: '198.51.100.7', show_results: true, show_steps: true });
    for (const name of ['ip_asn', 'ip_as_org', 'ip_country', 'ip_network_type']) expect(res.body.analyzed_data).not.toHaveProperty(name);
    expect(res.body.steps).not.toContain('hosting_network');
  });

  it('the default policy does not enable it: no network fields', async () => {
    const res = await verify(demo, { email_address: 'jane.doe@example.com', ipv4_address: '3.5.140.1', show_results: true });
    expect(res.body.analyzed_data).not.toHaveProperty('ip_asn');
    expect(res.body.warnings).not.toContain('hosting_network_detected');
  });
});

describe('IP velocity', () => {
  it('counts three addresses from one IPv4: the flag turns true with the warning, on the third (threshold 3)', async () => {
    const project = await server.createProject({ name: 'velocity-v4' });
    const other = await server.createProject({ name: 'velocity-v4-other' });
    const ip = '203.0.113.7';
    const emails = ['one@example.com', 'two@example.com', 'three@example.com'];
    const replies: Reply[] = [];
    for (const email of emails) replies.push(await verify(project, { email_address: email, ipv4_address: ip, show_results: true }));

    const [first, second, third] = replies.map((r) => r.body);
    expect(first).toMatchObject({ has_multiple_emails_in_ip: false, warnings: [] });
    expect(first.analyzed_data.total_email_in_ip).toBe('1');
    expect(second).toMatchObject({ action: 'allow', has_multiple_emails_in_ip: false, warnings: [] });
    expect(second.analyzed_data.total_email_in_ip).toBe('2');

    expect(third.has_multiple_emails_in_ip).toBe(true);
    expect(third.warnings).toEqual(['multiple_accounts_detected']);
    expect(third.action).toBe('challenge');
    expect(third.analyzed_data.total_email_in_ip).toBe('3');
    expect(third.analyzed_data.emails_in_ip_last_5_minutes).toBe('3');
    expect(third.analyzed_data.emails_in_ip.map((e: { email_address: string }) => e.email_address)).toEqual([
      'three@example.com',
      'two@example.com',
      'one@example.com',
    ]);
    for (const entry of third.analyzed_data.emails_in_ip) expect(entry.created_time).toMatch(CREATED_TIME);

    // Another project never sees this project's history.
    const elsewhere = await verify(other, { email_address: 'four@example.com', ipv4_address: ip, show_results: true });
    expect(elsewhere.body.has_multiple_emails_in_ip).toBe(false);
    expect(elsewhere.body.warnings).toEqual([]);
    expect(elsewhere.body.analyzed_data.total_email_in_ip).toBe('1');
    expect(elsewhere.body.analyzed_data.emails_in_ip).toEqual([{ email_address: 'four@example.com', created_time: expect.stringMatching(CREATED_TIME) }]);
  });

  it("turns the flag true at the policy's own ip_duplication threshold, with the warning (counts 1, 2, 3 at threshold 2)", async () => {
    const policyYaml = 'version: "1.0"\nchecks:\n  ip_duplication: { mode: soft, action: challenge, options: { threshold: 2, window: 5_minutes } }\n';
    const project = await server.createProject({ name: 'velocity-threshold-2', policyYaml });
    const replies: Reply[] = [];
    for (const email of ['t1@example.com', 't2@example.com', 't3@example.com']) {
      replies.push(await verify(project, { email_address: email, ipv4_address: '198.51.100.31', show_results: true }));
    }
    expect(replies.map((r) => [r.body.has_multiple_emails_in_ip, r.body.warnings, r.body.action])).toEqual([
      [false, [], 'allow'],
      [true, ['multiple_accounts_detected'], 'challenge'],
      [true, ['multiple_accounts_detected'], 'challenge'],
    ]);
  });

  it('sees every earlier call whatever the mix of IPv4 and IPv6 callers before it (no stale read snapshot)', async () => {
    // A read of one statement once left a snapshot open that hid every later commit from other statements.
    const project = await server.createProject({ name: 'velocity-mixed' });
    await verify(project, { email_address: 'mixed-0@example.com', ipv6_address: '2001:db8::77' });
    let last: Reply | undefined;
    for (const email of ['mixed-1@example.com', 'mixed-2@example.com', 'mixed-3@example.com']) {
      last = await verify(project, { email_address: email, ipv4_address: '192.0.2.77', show_results: true });
    }
    expect(last?.body.analyzed_data.total_email_in_ip).toBe('3');
    expect(last?.body.warnings).toEqual(['multiple_accounts_detected']);
    const v6 = await verify(project, { email_address: 'mixed-4@example.com', ipv6_address: '2001:db8::77', show_results: true });
    expect(v6.body.analyzed_data.total_email_in_ip).toBe('2');
    expect(v6.body.has_multiple_emails_in_ip).toBe(false);
  });

  it('counts repeated calls of one address without calling it multiple accounts', async () => {
    const project = await server.createProject({ name: 'velocity-same' });
    let last: Reply | undefined;
    for (let i = 0; i < 3; i++) last = await verify(project, { email_address: 'same@example.com', ipv4_address: '203.0.113.8', show_results: true });
    expect(last?.body.has_multiple_emails_in_ip).toBe(false);
    expect(last?.body.warnings).toEqual([]);
    expect(last?.body.analyzed_data.total_email_in_ip).toBe('3');
  });

  it('counts one address written in different cases as one address, non-ASCII letters included', async () => {
    const project = await server.createProject({ name: 'velocity-case' });
    const ip = '203.0.113.9';
    const replies: Reply[] = [];
    for (const email of ['Ärger.Jane@example.com', 'ärger.jane@EXAMPLE.com', 'ÄRGER.JANE@example.com']) {
      replies.push(await verify(project, { email_address: email, ipv4_address: ip, show_results: true }));
    }
    for (const reply of replies) expect(reply.body.has_multiple_emails_in_ip).toBe(false);
    const third = replies[2]?.body;
    expect(third.analyzed_data.total_email_in_ip).toBe('3');
    expect(third.warnings).not.toContain('multiple_accounts_detected');
    expect(third.analyzed_data.emails_in_ip).toEqual([{ email_address: 'ärger.jane@example.com', created_time: expect.stringMatching(CREATED_TIME) }]);
  });

  it('treats differently written IPv6 addresses as one IP', async () => {
    const project = await server.createProject({ name: 'velocity-v6' });
    const spellings = ['2001:db8::42', '2001:DB8:0:0:0:0:0:42', '2001:db8:0::42'];
    const replies: Reply[] = [];
    for (const [i, ip] of spellings.entries()) {
      replies.push(await verify(project, { email_address: `v6-${i}@example.com`, ipv6_address: ip, show_results: true }));
    }
    const third = replies[2]?.body;
    expect(third.has_multiple_emails_in_ip).toBe(true);
    expect(third.warnings).toEqual(['multiple_accounts_detected']);
    expect(third.analyzed_data.total_email_in_ip).toBe('3');
    expect(third.analyzed_data.emails_in_ip.map((e: { email_address: string }) => e.email_address)).toEqual([
      'v6-2@example.com',
      'v6-1@example.com',
      'v6-0@example.com',
    ]);
  });

  it('says "not checked" without an IP: flag null, no velocity data, no ip_duplication step or multiple_emails_in_ip type', async () => {
    const project = await server.createProject({ name: 'velocity-none' });
    let last: Reply | undefined;
    for (const email of ['n1@example.com', 'n2@example.com', 'n3@example.com']) {
      last = await verify(project, { email_address: email, show_results: true, show_steps: true });
    }
    expect(last?.body.has_multiple_emails_in_ip).toBeNull();
    expect(last?.body.warnings).toEqual([]);
    for (const name of VELOCITY_ANALYZED) expect(last?.body.analyzed_data).not.toHaveProperty(name);
    expect(last?.body.steps).not.toContain('ip_duplication');
    expect(last?.body.steps).toContain('structure');
    expect(last?.body.checked_types).not.toContain('multiple_emails_in_ip');
    expect(last?.body.checked_types).toContain('address_format');
  });
});

describe('device (verify with a fingerprint)', () => {
  const fingerprintOf = async (project: CreatedProject, userAgent: string): Promise<string> => {
    const res = await post(server.url, '/v1/fingerprint', {}, { ...apiKey(project.keys.public_key), 'user-agent': userAgent });
    return res.body.fingerprint as string;
  };

  it('stores the device with the event and lets a policy challenge a fourth account from one device', async () => {
    const project = await server.createProject({ name: 'device-rule', policyYaml: fixturePolicy('device-velocity') });
    const fp = await fingerprintOf(project, 'Device A');
    const actions: string[] = [];
    for (const email of ['d1@example.com', 'd2@example.com', 'd3@example.com', 'd4@example.com']) {
      const res = await verify(project, { email_address: email, fingerprint: fp, show_results: true });
      expect(res.status).toBe(200);
      actions.push(res.body.action as string);
    }
    expect(actions).toEqual(['allow', 'allow', 'allow', 'challenge']);
    const devices = (await eventsOf(project)).map((e) => e.device);
    expect(new Set(devices).size).toBe(1);
    expect(devices[0]).toEqual(expect.any(String));
    // Another device (another user agent) starts from nothing; no fingerprint stores no device.
    expect((await verify(project, { email_address: 'd5@example.com', fingerprint: await fingerprintOf(project, 'Device B') })).body.action).toBe('allow');
    await verify(project, { email_address: 'd6@example.com' });
    expect((await eventsOf(project)).at(-1)?.device).toBeNull();
  });

  it.each([
    ['not a token', () => Promise.resolve('hello')],
    ['a token of another project', () => fingerprintOf(demo, 'x')],
    ['an empty string', () => Promise.resolve('')],
    ['a too long string', () => Promise.resolve(`fp1.k.${'a'.repeat(2048)}`)],
  ])('refuses %s with 400 naming fingerprint, storing nothing', async (_label, token) => {
    const project = await server.createProject({ name: `device-bad-${Math.random().toString(36).slice(2)}` });
    const res = await verify(project, { email_address: 'bad@example.com', fingerprint: await token() });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/fingerprint/);
    expect(await eventsOf(project)).toEqual([]);
  });
});
