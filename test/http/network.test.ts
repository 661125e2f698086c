// The network checks over HTTP, against real servers on 127.0.0.1: a DNS server (dns2) and an RDAP
// server (node:http). What a caller sees: facts, codes per mode, the cache, soft_check, a dead resolver.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { startDnsServer, TEST_ZONE, type TestDnsServer } from '../support/dns-server.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

let dns: TestDnsServer;
let rdap: Server;
let server: TestServer;
let project: CreatedProject;
let riskProject: CreatedProject;
let velocityProject: CreatedProject;

const POLICY = `version: "1.0"
checks:
  mx_record:         { mode: hard, action: block }
  fallback_a_record: { mode: hard, action: block }
  domain_age:        { mode: soft, action: challenge, options: { new_domain_days: 30 } }
`;

// The DNS and domain-age checks beside a velocity check: domain information and analytics in one decision.
const VELOCITY_POLICY = `${POLICY}  ip_duplication:    { mode: soft, action: challenge, options: { threshold: 2, window: total } }
`;

// Risk alone; .test is no ICANN TLD, so unknown_tld is weighed 0 to leave the domain's own signals.
const RISK_POLICY = `version: "1.0"
checks:
  risk_score: { mode: soft, action: block, options: { weights: { unknown_tld: 0 } } }
`;

beforeAll(async () => {
  // A generator's rotating domain, registered three days ago, whose mail goes to a listed service's host.
  dns = await startDnsServer({ ...TEST_ZONE, 'rotating.test': { records: [{ type: 'MX', exchange: 'mx.guerrillamail.com', priority: 10 }] } });
  rdap = createServer((req, res) => {
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const registered: Record<string, string> = { 'mx.test': '2001-05-01T00:00:00Z', 'aonly.test': daysAgo(5), 'rotating.test': daysAgo(3) };
    const name = decodeURIComponent(req.url ?? '').replace(/^.*\/domain\//, '');
    const date = registered[name];
    if (!date) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'application/rdap+json' })
      .end(JSON.stringify({ ldhName: name, events: [{ eventAction: 'registration', eventDate: date }] }));
  });
  await new Promise<void>((done) => rdap.listen(0, '127.0.0.1', done));
  server = await startService({
    env: {
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: `127.0.0.1:${dns.port}`,
      DNS_TIMEOUT_MS: '200',
      DNS_TRIES: '1',
      NETWORK_BUDGET_MS: '400',
      RDAP_BASE_URL: `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`,
      WEB_CHECKS: 'off',
    },
  });
  project = await server.createProject({ name: 'network', policyYaml: POLICY });
  riskProject = await server.createProject({ name: 'network-risk', policyYaml: RISK_POLICY });
  velocityProject = await server.createProject({ name: 'network-velocity', policyYaml: VELOCITY_POLICY });
});
afterAll(async () => {
  await server?.close();
  await new Promise((done) => rdap?.close(done));
  await dns?.close();
});

function verify(email: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return post(server.url, '/v1/public/verify', { email_address: email, show_results: true, ...extra }, bearer(project.keys.access_token));
}

describe('network checks over HTTP', () => {
  it('a domain with MX: valid, counted, established by RDAP, allowed', async () => {
    const res = await verify('jane@mx.test', { show_steps: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'allow', errors: [], warnings: [] });
    expect(res.body.checked_types).toEqual(['mx_record']);
    expect(res.body.steps).toEqual(expect.arrayContaining(['mx_record', 'fallback_a_record', 'domain_age']));
    expect(res.body.analyzed_data).toMatchObject({
      mx_record_count: '1',
      mx_record_status: 'valid',
      a_record_fallback: 'not_needed',
      domain_age_signal: 'established',
    });
    expect(Number(res.body.analyzed_data.domain_age_days)).toBeGreaterThan(9000);
  });

  it('NXDOMAIN: no_mx_records and no_a_record in hard mode, blocked', async () => {
    const res = await verify('jane@nx.test');
    expect(res.body).toMatchObject({ action: 'block', errors: ['no_mx_records', 'no_a_record'] });
    expect(res.body.analyzed_data).toMatchObject({ mx_record_status: 'invalid', a_record_fallback: 'invalid' });
  });

  it('only A records: no_mx_records, the A fallback is valid; a five-day-old domain is new', async () => {
    const res = await verify('jane@aonly.test');
    expect(res.body).toMatchObject({ action: 'block', errors: ['no_mx_records'], warnings: ['domain_is_new'] });
    expect(res.body.analyzed_data).toMatchObject({
      mx_record_status: 'invalid',
      a_record_fallback: 'valid',
      a_record_count: '1',
      domain_age_signal: 'new_domain',
      domain_age_days: '5',
    });
  });

  it('SERVFAIL and a silent server are "not_checked", never blocking and never a 5xx', async () => {
    for (const email of ['jane@servfail.test', 'jane@silent.test']) {
      const res = await verify(email, { show_steps: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ action: 'allow', errors: [] });
      expect(res.body.analyzed_data.mx_record_status).toBe('not_checked');
      // The lookups could not tell: the DNS checks are not reported as run.
      expect(res.body.checked_types).toEqual([]);
      expect(res.body.steps).not.toContain('mx_record');
      expect(res.body.steps).not.toContain('fallback_a_record');
      expect(res.body.analyzed_data).not.toHaveProperty('a_record_fallback');
    }
  });

  it('answers a second call from the cache: no new DNS question', async () => {
    await verify('first@multi.test');
    const asked = dns.count('multi.test');
    expect(asked).toBeGreaterThan(0);
    const res = await verify('second@multi.test');
    expect(res.body.analyzed_data).toMatchObject({ mx_record_count: '2', mx_record_status: 'valid' });
    expect(dns.count('multi.test')).toBe(asked);
  });

  it('soft_check stores no domain facts (the event still is); a normal call stores them', async () => {
    const facts = (domain: string) => server.service.store.knex('domain_facts').where('domain', 'like', `%${domain}%`);
    const soft = await verify('jane@v6only.test', { soft_check: true });
    expect(soft.status).toBe(200);
    // A normal call's facts, written after any the soft call would have written (one connection, in order).
    expect((await verify('jane@nullmx.test')).status).toBe(200);
    await expect.poll(async () => (await facts('nullmx.test')).length).toBeGreaterThan(0);
    expect(await facts('v6only.test')).toEqual([]);
    expect(await server.service.store.knex('events').where({ email: 'jane@v6only.test' })).toHaveLength(1);

    await verify('john@v6only.test');
    await expect.poll(async () => (await facts('v6only.test')).length).toBeGreaterThan(0);
  });
});

describe("soft_check and the event's recorded facts", () => {
  async function recorded(email: string, soft: boolean): Promise<Record<string, unknown>> {
    const res = await post(
      server.url,
      '/v1/public/verify',
      { email_address: email, ipv4_address: '198.51.100.77', ...(soft ? { soft_check: true } : {}) },
      bearer(velocityProject.keys.access_token),
    );
    expect(res.status).toBe(200);
    const row = await server.service.store.knex('events').first('recorded_facts').where({ email });
    return JSON.parse(row.recorded_facts);
  }

  it('without soft_check: the DNS and domain-age answers are stored with the event, beside the velocity count', async () => {
    const facts = await recorded('first@mx.test', false);
    expect(facts).toEqual({
      mx_record_status: 'valid',
      mx_record_count: 1,
      a_record_fallback: 'not_needed',
      domain_age_signal: 'established',
      distinct_emails_in_ip: 1,
    });
  });

  it('with soft_check: the event keeps the velocity count (analytics) and no DNS or domain-age answer, and is marked', async () => {
    const facts = await recorded('second@mx.test', true);
    expect(facts).toEqual({ $soft_check: true, distinct_emails_in_ip: 2 });
  });
});

describe('disposable infrastructure over HTTP', () => {
  it("a three-day-old domain on a disposable service's MX host: high risk, blocked, the breakdown names both", async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 'jane@rotating.test', show_results: true }, bearer(riskProject.keys.access_token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      action: 'block',
      warnings: ['high_risk_score'],
      risk_score: 60,
      risk_level: 'high',
      risk_score_breakdown: { new_domain: 20, disposable_infrastructure: 40 },
    });
    expect(res.body.analyzed_data).toMatchObject({ risk_breakdown_signals: 'new_domain,disposable_infrastructure' });
  });

  it('an established domain on ordinary mail hosts: no such signal', async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 'jane@mx.test', show_results: true }, bearer(riskProject.keys.access_token));
    expect(res.status).toBe(200);
    expect(res.body.risk_score_breakdown).not.toHaveProperty('disposable_infrastructure');
  });
});
