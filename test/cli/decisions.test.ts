// `email-trust events list|show` and `project show` (issue 49, point 4), on a SQLite file and on PostgreSQL,
// over decisions made through the real HTTP service: from the X-Decision-Id a user's answer carried to what
// was recorded, the codes, the request id and the policy revision; lists newest first, filtered and limited;
// a project as the service sees it; and every bad option refused naming it (exit 2).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { policyRevision } from '../../src/policy/load.js';
import { runCli } from '../support/cli-run.js';
import { createPostgresSchema } from '../support/databases.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';

const POLICY = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: allow_with_review }
intelligence:
  parent_rules:
    - { field: domain_disposable, operator: "==", target: { bool: true }, action: block }
`;

interface Listed {
  id: number;
  decision_id: string | null;
  created_at: string;
  endpoint: string;
  action: string;
  email: string;
  ipv4: string | null;
  ipv6: string | null;
  errors: string[];
  warnings: string[];
  parent_rule: number | null;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-decisions-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['sqlite', 'postgres'] as const)('events list, events show and project show on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  let dropSchema: (() => Promise<void>) | null = null;
  const savedUrl = process.env.DATABASE_URL;
  const decisions: Record<string, string> = {};

  beforeAll(async () => {
    let url = `sqlite:${join(dir, `${database}.sqlite`)}`;
    if (database === 'postgres') {
      const schema = await createPostgresSchema();
      url = schema.url;
      dropSchema = schema.drop;
    }
    process.env.DATABASE_URL = url;
    server = await startService({ databaseUrl: url });
    shop = await server.createProject({ name: 'shop', policyYaml: POLICY });
    const other = await server.createProject({ name: 'other' });
    // Two hours ago, before decision ids: no id, no revision.
    await server.service.store.events.record({
      projectId: shop.project.id,
      endpoint: 'verify',
      email: 'old@example.com',
      emailLower: 'old@example.com',
      baseEmail: 'old@example.com',
      action: 'allow',
      createdAt: Date.now() - 2 * 3_600_000,
    });
    const verify = async (name: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await post(server.url, '/v1/public/verify', body, { ...bearer(shop.keys.access_token), ...headers });
      expect(res.status).toBe(200);
      decisions[name] = res.headers.get('x-decision-id') as string;
    };
    await verify('jane', { email_address: 'Jane.Doe+news@gmail.com', ipv4_address: '203.0.113.7' }, { 'x-request-id': 'ticket-4711' });
    await verify('janedoe', { email_address: 'janedoe@gmail.com', ipv6_address: '2001:db8:0:0::5' });
    await verify('throwaway', { email_address: 'info@mailinator.com', ipv4_address: '203.0.113.7' });
    const intelligence = await post(server.url, '/v1/intelligence', { email_address: 'bob@mailinator.com' }, apiKey(shop.keys.private_key));
    expect(intelligence.status).toBe(200);
    decisions.intelligence = intelligence.headers.get('x-decision-id') as string;
    expect((await post(server.url, '/v1/public/verify', { email_address: 'jane.doe@gmail.com' }, bearer(other.keys.access_token))).status).toBe(200);
    await server.service.store.projectLists.add(shop.project.id, 'known-abuse', ['bad.example', 'worse.example']);
    await server.service.store.projects.update(shop.project.id, { allowedOrigins: ['https://shop.example'], monthlyQuota: 1_000 });
  });

  afterAll(async () => {
    await server?.close();
    await dropSchema?.();
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  });

  const list = async (...args: string[]): Promise<Listed[]> => {
    const r = await runCli('events', 'list', '--project', 'shop', '--json', ...args);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out) as Listed[];
  };
  const emails = (events: Listed[]) => events.map((e) => e.email);

  it("lists the project's decisions newest first, never another project's (--json)", async () => {
    const events = await list();
    expect(emails(events)).toEqual(['bob@mailinator.com', 'info@mailinator.com', 'janedoe@gmail.com', 'Jane.Doe+news@gmail.com', 'old@example.com']);
    expect(events[0]).toEqual({
      id: expect.any(Number),
      decision_id: decisions.intelligence,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      endpoint: 'intelligence',
      action: 'block',
      email: 'bob@mailinator.com',
      ipv4: null,
      ipv6: null,
      errors: [],
      warnings: [],
      parent_rule: 0,
    });
    expect(events[1]).toMatchObject({ decision_id: decisions.throwaway, action: 'block', errors: ['domain_is_disposable'], warnings: ['local_is_role_based'] });
    expect(events[4]?.decision_id).toBeNull();
  });

  it('filters by address (its variants too), IP in any spelling, action, age and count', async () => {
    expect(emails(await list('--email', 'JANE.doe@gmail.com'))).toEqual(['janedoe@gmail.com', 'Jane.Doe+news@gmail.com']);
    expect(emails(await list('--ip', '2001:DB8::0:5'))).toEqual(['janedoe@gmail.com']);
    expect(emails(await list('--ip', '203.0.113.7'))).toEqual(['info@mailinator.com', 'Jane.Doe+news@gmail.com']);
    expect(emails(await list('--action', 'block'))).toEqual(['bob@mailinator.com', 'info@mailinator.com']);
    expect(emails(await list('--ip', '203.0.113.7', '--action', 'allow', '--email', 'jane.doe@gmail.com'))).toEqual(['Jane.Doe+news@gmail.com']);
    expect(emails(await list('--since', '1h'))).not.toContain('old@example.com');
    expect(emails(await list('--since', '3h'))).toContain('old@example.com');
    expect(emails(await list('--limit', '2'))).toEqual(['bob@mailinator.com', 'info@mailinator.com']);
  });

  it('prints one line per event: id, time, endpoint, action, address, IP, codes', async () => {
    const r = await runCli('events', 'list', '--project', 'shop', '--action', 'block');
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d+ {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}intelligence {2}block {2}bob@mailinator\.com {2}- {2}parent_rule=0$/);
    expect(lines[1]).toMatch(/ {2}verify {2}block {2}info@mailinator\.com {2}203\.0\.113\.7 {2}errors=domain_is_disposable warnings=local_is_role_based$/);
    expect((await runCli('events', 'list', '--project', 'shop', '--email', 'nobody@example.com')).out).toBe('no events of project shop match\n');
  });

  it.each([
    [['--limit', '1001'], /--limit must be a whole number from 1 to 1000, got "1001"/],
    [['--limit', '0'], /--limit must be a whole number from 1 to 1000/],
    [['--since', '24 hours'], /--since must be a number and a unit/],
    [['--action', 'deny'], /--action must be one of none, allow, .*, block, ignore; got "deny"/],
    [['--ip', '203.0.113.300'], /--ip must be an IPv4 address .* got "203.0.113.300"/],
    [['--email', ''], /--email must be an address/],
  ])('refuses %j naming the option (exit 2)', async (args, message) => {
    const r = await runCli('events', 'list', '--project', 'shop', ...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });

  it('refuses an unknown project (exit 2)', async () => {
    const r = await runCli('events', 'list', '--project', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no project named or with id "nope"/);
  });

  it('shows a decision by the id its answer carried: what was recorded, the codes, the request id, the policy and its revision', async () => {
    const r = await runCli('events', 'show', decisions.jane as string);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`decision ${decisions.jane}`);
    expect(r.out).toMatch(/project {6}shop \(prj_/);
    expect(r.out).toContain('request id   ticket-4711');
    expect(r.out).toContain('address      Jane.Doe+news@gmail.com (lower-cased jane.doe+news@gmail.com, base janedoe@gmail.com)');
    expect(r.out).toContain('ips          203.0.113.7');
    expect(r.out).toContain('action       allow');
    expect(r.out).toContain(`policy       shop, revision ${policyRevision(POLICY)}: its text is stored`);
    const json = JSON.parse((await runCli('events', 'show', decisions.throwaway as string, '--json')).out);
    expect(json).toMatchObject({
      decision_id: decisions.throwaway,
      request_id: expect.any(String),
      project: { id: shop.project.id, name: 'shop' },
      endpoint: 'verify',
      email: 'info@mailinator.com',
      base_email: 'info@mailinator.com',
      domain: 'mailinator.com',
      ipv4: '203.0.113.7',
      action: 'block',
      errors: ['domain_is_disposable'],
      warnings: ['local_is_role_based'],
      policy: { name: 'shop', revision: policyRevision(POLICY), text_stored: true },
    });
    const byId = JSON.parse((await runCli('events', 'show', String(json.id), '--json')).out);
    expect(byId).toEqual(json);
  });

  it('shows an event stored before decision ids, and refuses an id it does not have (exit 2)', async () => {
    const [old] = await list('--email', 'old@example.com');
    const r = await runCli('events', 'show', String(old?.id));
    expect(r.code).toBe(0);
    expect(r.out).toContain('policy       -, revision -: no revision recorded');
    expect(r.out).toContain('recorded facts: none');
    for (const id of ['01900000-0000-7000-8000-000000000009', '999999999', 'neither']) {
      const missing = await runCli('events', 'show', id);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain(`no stored event with the decision id or event id "${id}"`);
    }
  });

  it('shows a project: policy, revision and text, lists, quota and usage, origins, keys by hint only', async () => {
    const r = await runCli('project', 'show', 'shop', '--json');
    expect(r.code, r.err).toBe(0);
    const shown = JSON.parse(r.out);
    expect(shown).toMatchObject({
      id: shop.project.id,
      name: 'shop',
      sandbox: false,
      policy: { name: 'shop', from_file: true, file: null, revision: policyRevision(POLICY), problem: null, text: POLICY },
      lists: { 'known-abuse': { count: 2, entries: ['bad.example', 'worse.example'] } },
      monthly_quota: 1_000,
      usage: { month: expect.stringMatching(/^\d{4}-\d\d$/), calls: 4 },
      allowed_origins: ['https://shop.example'],
    });
    expect(shown.keys.map((k: { kind: string }) => k.kind).sort()).toEqual(['access_token', 'private_key', 'public_key']);
    expect(shown.keys[0]).toMatchObject({ hint: expect.stringMatching(/^etv_/), status: 'live' });
    for (const token of Object.values(shop.keys)) expect(r.out).not.toContain(token);
    expect(r.out).not.toMatch(/"hash"/);
    const text = await runCli('project', 'show', 'shop');
    expect(text.out).toContain(`policy    shop (from file), revision ${policyRevision(POLICY)}`);
    expect(text.out).toContain('quota     1000 calls a month;');
    expect(text.out).toContain('origins   https://shop.example');
    expect(text.out).toMatch(/ {2}known-abuse {2}2 entries\n {4}bad\.example\n {4}worse\.example/);
    expect(text.out).toContain('policy text:\n  version: "1.0"\n  default_action: allow');
    const named = JSON.parse((await runCli('project', 'show', 'other', '--json')).out);
    expect(named.policy).toMatchObject({ name: 'default', from_file: false, file: expect.stringMatching(/policies\/default\.yaml$/), problem: null });
    expect(named.policy.revision).toBe(policyRevision(named.policy.text));
    expect((await runCli('project', 'show', 'nope')).code).toBe(2);
  });
});
