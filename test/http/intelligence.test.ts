// POST /v1/fingerprint and POST /v1/intelligence: sealed device fingerprints, the analysis shape in
// both documented forms, velocity by email, and custom_policy (sandbox projects only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { expectPlainError } from './contract.js';

let server: TestServer;
let project: CreatedProject;
let other: CreatedProject;
let sandbox: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'intel' });
  other = await server.createProject({ name: 'intel-other' });
  sandbox = await server.createProject({ name: 'intel-sandbox', sandbox: true });
});
afterAll(() => server.close());

const intelligence = (p: CreatedProject, body: unknown, srv: TestServer = server): Promise<Reply> =>
  post(srv.url, '/v1/intelligence', body, apiKey(p.keys.private_key));
const fingerprint = (p: CreatedProject, headers: Record<string, string> = {}): Promise<Reply> =>
  post(server.url, '/v1/fingerprint', {}, { ...apiKey(p.keys.public_key), ...headers });

const FINGERPRINT = /^fp1\.[A-Za-z0-9]+\.[A-Za-z0-9_-]+$/;

describe('fingerprint', () => {
  it('answers {fingerprint: "fp1.…"} for {} and the public key', async () => {
    const res = await fingerprint(project);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ fingerprint: expect.stringMatching(FINGERPRINT) });
  });

  it('issues a new opaque value on every call (nothing readable inside)', async () => {
    const a = (await fingerprint(project, { 'user-agent': 'Mozilla/5.0 Test' })).body.fingerprint as string;
    const b = (await fingerprint(project, { 'user-agent': 'Mozilla/5.0 Test' })).body.fingerprint as string;
    expect(a).not.toBe(b);
    const payload = Buffer.from(a.split('.')[2] ?? '', 'base64url').toString('latin1');
    expect(payload).not.toContain('127.0.0.1');
    expect(payload).not.toContain(project.project.id);
  });

  it('is accepted by intelligence of the same project, whose event then carries the device and IP', async () => {
    const fp = (await fingerprint(project)).body.fingerprint as string;
    const res = await intelligence(project, { email_address: 'device@example.com', fingerprint: fp });
    expect(res.status).toBe(200);
    const rows = await server.service.store.knex('events').where({ project_id: project.project.id, email: 'device@example.com' });
    expect(rows).toEqual([expect.objectContaining({ endpoint: 'intelligence', ipv4: '127.0.0.1', device: expect.any(String) })]);
  });

  it('is refused (400 naming fingerprint) by intelligence of another project', async () => {
    const fp = (await fingerprint(project)).body.fingerprint as string;
    const res = await intelligence(other, { email_address: 'device@example.com', fingerprint: fp });
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(/^fingerprint/);
    expect(res.body.error).toMatch(/another project/);
  });

  it.each([
    ['a flipped character', (fp: string) => flipMiddle(fp)],
    ['a truncated value', (fp: string) => fp.slice(0, 20)],
    ['an unknown key id', (fp: string) => fp.replace(/^fp1\.[^.]+\./, 'fp1.zz9.')],
    ['another version', (fp: string) => fp.replace(/^fp1\./, 'fp2.')],
    ['not a token at all', () => 'hello'],
    ['a non-canonical spelling (padding appended)', (fp: string) => `${fp}=`],
  ])('is refused (400 naming fingerprint) when tampered: %s', async (_label, tamper) => {
    const fp = (await fingerprint(project)).body.fingerprint as string;
    const res = await intelligence(project, { email_address: 'device@example.com', fingerprint: tamper(fp) });
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(/^fingerprint/);
  });
});

function flipMiddle(fp: string): string {
  const parts = fp.split('.');
  const body = parts[2] ?? '';
  const i = Math.floor(body.length / 2);
  parts[2] = `${body.slice(0, i)}${body[i] === 'A' ? 'B' : 'A'}${body.slice(i + 1)}`;
  return parts.join('.');
}

describe('intelligence (form B, the default)', () => {
  it('answers the full shape, with null IP intelligence and empty velocity_by_ip without a fingerprint', async () => {
    const res = await intelligence(project, { email_address: 'Jane.Doe+news@Example.com' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['action', 'email', 'ip', 'parent_rule', 'velocity_by_email', 'velocity_by_ip']);
    expect(['allow', 'block', 'ignore']).toContain(res.body.action);
    expect(res.body.ip).toEqual({ is_datacenter: null, is_tor: null, is_vpn: null, asn: null, as_org: null, country: null, network_type: null });
    expect(res.body.velocity_by_ip).toEqual({ items: [], count: 0 });
    expect(res.body.velocity_by_email).toEqual({ items: [], count: 0 });

    const { normalized, details } = res.body.email;
    expect(Object.keys(normalized).sort()).toEqual(['base', 'without_dot_variations', 'without_plus_addressing', 'without_punycode', 'without_typo_mismatch']);
    for (const value of Object.values(normalized)) expect(value === null || typeof value === 'string').toBe(true);
    expect(normalized).toEqual({
      base: 'jane.doe@example.com',
      without_plus_addressing: 'Jane.Doe@example.com',
      without_dot_variations: null,
      without_punycode: null,
      without_typo_mismatch: null,
    });
    expect(details.deliverability).toBe('unknown');
    expect(details.domain).toMatchObject({ category: 'business', free_provider: null, has_typo_mismatch: false });
    expect(details.local).toMatchObject({
      has_plus_addressing: true,
      has_dot_variation: true,
      has_numeric: false,
      has_hyphen: false,
      has_underscore: false,
      is_quoted: false,
    });
    expect(Object.keys(details.local).sort()).toEqual(
      [
        'fraud_pattern',
        'has_dot_variation',
        'has_fraud_pattern',
        'has_hyphen',
        'has_mixed_script',
        'has_numeric',
        'has_plus_addressing',
        'has_special_characters',
        'has_underscore',
        'is_quoted',
        'mixed_script',
      ].sort(),
    );
    expect(['business', 'free', 'education', 'government', 'disposable', 'unknown']).toContain(details.domain.category);
    expect(details.domain).toMatchObject({
      has_valid_tld: true,
      has_punycode: false,
      is_ipv4: false,
      is_ipv6: false,
      is_only_numeric: false,
      is_single_label: false,
    });
    for (const field of ['free_provider', 'punycode_value', 'has_website', 'has_typo_mismatch']) expect(details.domain).toHaveProperty(field);
    expect(details.domain.subdomain).toEqual({
      count: 0,
      has_hyphen: false,
      has_numeric: false,
      has_numeric_label: false,
      has_uuid: false,
      has_wildcard: false,
    });
  });

  it('has_numeric means "contains a digit" for the local part and the subdomain alike; an all-digit label is has_numeric_label', async () => {
    const traits = async (email_address: string) => {
      const details = (await intelligence(project, { email_address })).body.email.details;
      return { local: details.local.has_numeric, subdomain: details.domain.subdomain.has_numeric, label: details.domain.subdomain.has_numeric_label };
    };
    expect(await traits('jane2@mail2.example.com')).toEqual({ local: true, subdomain: true, label: false });
    expect(await traits('jane@123.example.com')).toEqual({ local: false, subdomain: true, label: true });
    expect(await traits('jane@mail.example.com')).toEqual({ local: false, subdomain: false, label: false });
  });

  it('has a null base for an address that is not valid', async () => {
    const res = await intelligence(project, { email_address: 'not an address' });
    expect(res.status).toBe(200);
    expect(res.body.email.normalized.base).toBeNull();
  });

  it('shows an earlier call for the same address in velocity_by_email, newest first', async () => {
    await intelligence(project, { email_address: 'repeat@example.com' });
    const second = await intelligence(project, { email_address: 'Repeat@Example.com' });
    expect(second.body.velocity_by_email.count).toBe(1);
    expect(second.body.velocity_by_email.items).toEqual([{ passed_email: 'repeat@example.com', created_at: expect.any(Number) }]);
    const [item] = second.body.velocity_by_email.items;
    expect(Number.isInteger(item.created_at)).toBe(true);
    expect(Math.abs(item.created_at - Date.now() / 1000)).toBeLessThan(60);

    const third = await intelligence(project, { email_address: 'repeat@example.com' });
    expect(third.body.velocity_by_email.count).toBe(2);
    expect(third.body.velocity_by_email.items.map((i: { passed_email: string }) => i.passed_email)).toEqual(['Repeat@Example.com', 'repeat@example.com']);
    // Another project has no history of it.
    const elsewhere = await intelligence(other, { email_address: 'repeat@example.com' });
    expect(elsewhere.body.velocity_by_email).toEqual({ items: [], count: 0 });
  });

  it("fills velocity_by_ip from the fingerprint's IP: that IP's past validations, newest first, and their count", async () => {
    const p = await server.createProject({ name: 'intel-by-ip' });
    const fp = (await fingerprint(p)).body.fingerprint as string;
    const first = await intelligence(p, { email_address: 'one@example.com', fingerprint: fp });
    expect(first.status).toBe(200);
    expect(first.body.velocity_by_ip).toEqual({ items: [], count: 0 }); // its own event is stored after the answer
    await intelligence(p, { email_address: 'two@example.com', fingerprint: fp });
    const third = await intelligence(p, { email_address: 'three@example.com', fingerprint: fp });
    expect(third.body.velocity_by_ip.count).toBe(2);
    expect(third.body.velocity_by_ip.items).toEqual([
      { ipv4_address: '127.0.0.1', ipv6_address: null, created_at: expect.any(Number) },
      { ipv4_address: '127.0.0.1', ipv6_address: null, created_at: expect.any(Number) },
    ]);
    const [newest, older] = third.body.velocity_by_ip.items;
    expect(newest.created_at).toBeGreaterThanOrEqual(older.created_at);
    // Without a fingerprint there is no IP to look up; another project sees none of these.
    expect((await intelligence(p, { email_address: 'four@example.com' })).body.velocity_by_ip).toEqual({ items: [], count: 0 });
    const elsewhere = await intelligence(other, { email_address: 'x@example.com', fingerprint: (await fingerprint(other)).body.fingerprint });
    expect(elsewhere.body.velocity_by_ip).toEqual({ items: [], count: 0 });
  });

  it('refuses custom_policy on a non-sandbox project (400 naming custom_policy)', async () => {
    const res = await intelligence(project, { email_address: 'a@example.com', custom_policy: { version: '1.0', parent_rules: [] } });
    expectPlainError(res, 400);
    expect(res.body.error).toContain('custom_policy');
  });

  it('accepts custom_policy on a sandbox project', async () => {
    const res = await intelligence(sandbox, {
      email_address: 'a@example.com',
      custom_policy: {
        version: '1.0.0',
        stop_on_block: true,
        parent_rules: [{ field: 'domain_disposable', operator: '==', target: { bool: true }, action: 'block' }],
      },
    });
    expect(res.status).toBe(200);
    expect(['allow', 'block', 'ignore']).toContain(res.body.action);
  });

  it.each([
    ['an unknown operator', { parent_rules: [{ field: 'domain_free', operator: '~', target: { bool: true }, action: 'block' }] }, 'operator'],
    ['an unknown action', { parent_rules: [{ field: 'domain_free', operator: '==', target: { bool: true }, action: 'quarantine' }] }, 'action'],
    ['a target that is not {bool}', { parent_rules: [{ field: 'domain_free', operator: '==', target: true, action: 'block' }] }, 'target'],
    ['a bad version', { version: 'one' }, 'version'],
  ])('refuses an invalid custom_policy (%s) with 400 naming it', async (_label, customPolicy, field) => {
    const res = await intelligence(sandbox, { email_address: 'a@example.com', custom_policy: customPolicy });
    expectPlainError(res, 400);
    expect(res.body.error).toContain('custom_policy');
    expect(res.body.error).toContain(field);
  });
});

describe("intelligence form B: ip, from the fingerprint's IP", () => {
  it('is false, false, false for the test client (127.0.0.1 is in no list), with no network (loopback)', async () => {
    const fp = (await fingerprint(project)).body.fingerprint as string;
    const res = await intelligence(project, { email_address: 'ip@example.com', fingerprint: fp });
    expect(res.status).toBe(200);
    expect(res.body.ip).toEqual({ is_datacenter: false, is_tor: false, is_vpn: false, asn: null, as_org: null, country: null, network_type: null });
  });

  describe('behind one trusted proxy (TRUST_PROXY=1, one X-Forwarded-For entry)', () => {
    let proxied: TestServer;
    let p: CreatedProject;
    beforeAll(async () => {
      proxied = await startService({ env: { TRUST_PROXY: '1' } });
      p = await proxied.createProject({ name: 'intel-proxied' });
    });
    afterAll(() => proxied.close());

    const ipOf = async (clientIp: string) => {
      const token = await post(proxied.url, '/v1/fingerprint', {}, { ...apiKey(p.keys.public_key), 'x-forwarded-for': clientIp });
      expect(token.status).toBe(200);
      const res = await intelligence(p, { email_address: 'ip@example.com', fingerprint: token.body.fingerprint }, proxied);
      expect(res.status).toBe(200);
      return res.body.ip;
    };

    const amazon = { asn: 16509, as_org: 'Amazon.com, Inc.', country: 'KR', network_type: 'hosting' };
    it.each([
      ['an AWS address', '3.5.140.1', { is_datacenter: true, is_tor: false, is_vpn: false, ...amazon }],
      [
        'a Tor exit (also in datacenter.txt)',
        '5.2.67.226',
        { is_datacenter: true, is_tor: true, is_vpn: false, asn: 60404, as_org: 'The Infrastructure Group B.V.', country: 'NL', network_type: 'hosting' },
      ],
      [
        'an iCloud Private Relay address (also in datacenter.txt)',
        '172.224.226.1',
        { is_datacenter: true, is_tor: false, is_vpn: true, asn: 36183, as_org: 'Akamai Technologies, Inc.', country: 'GB', network_type: 'hosting' },
      ],
      [
        'an IPv6 Googlebot address',
        '2001:4860:4801:10::1',
        { is_datacenter: true, is_tor: false, is_vpn: false, asn: 15169, as_org: 'Google LLC', country: 'US', network_type: 'hosting' },
      ],
      [
        'an address in no list (documentation)',
        '192.0.2.1',
        { is_datacenter: false, is_tor: false, is_vpn: false, asn: null, as_org: null, country: null, network_type: null },
      ],
    ])('fills is_datacenter, is_tor, is_vpn and the network for %s', async (_label, clientIp, expected) => {
      expect(await ipOf(clientIp)).toEqual(expected);
    });
  });
});

describe('intelligence form A (INTELLIGENCE_FORM=A)', () => {
  let formA: TestServer;
  let p: CreatedProject;
  beforeAll(async () => {
    formA = await startService({ env: { INTELLIGENCE_FORM: 'A' } });
    p = await formA.createProject({ name: 'form-a' });
  });
  afterAll(() => formA.close());

  it('has no ip and no velocity_by_ip, and base_email items', async () => {
    const first = await intelligence(p, { email_address: 'Form.A@example.com' }, formA);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['action', 'email', 'parent_rule', 'velocity_by_email']);
    const second = await intelligence(p, { email_address: 'form.a@example.com' }, formA);
    expect(second.body.velocity_by_email).toEqual({ items: [{ base_email: 'form.a@example.com', created_at: expect.any(Number) }], count: 1 });
  });
});

describe('intelligence classification and normalised forms', () => {
  it('a gmail address: category free, provider key, dots and plus removed for the base', async () => {
    const res = await intelligence(project, { email_address: 'Jane.Doe+x@googlemail.com' });
    expect(res.body.email.normalized).toEqual({
      base: 'janedoe@gmail.com',
      without_plus_addressing: 'Jane.Doe@googlemail.com',
      without_dot_variations: 'JaneDoe+x@gmail.com',
      without_punycode: null,
      without_typo_mismatch: null,
    });
    expect(res.body.email.details.domain).toMatchObject({ category: 'free', free_provider: 'gmail' });
  });

  it('a typo: without_typo_mismatch and has_typo_mismatch', async () => {
    const res = await intelligence(project, { email_address: 'jane@gmial.com' });
    expect(res.body.email.normalized.without_typo_mismatch).toBe('jane@gmail.com');
    expect(res.body.email.details.domain).toMatchObject({ has_typo_mismatch: true });
  });

  it.each([
    ['x@mailinator.com', 'disposable'],
    ['student@cs.mit.edu', 'education'],
    ['clerk@hmrc.gov.uk', 'government'],
    ['ceo@example.com', 'business'],
    ['not-an-address', 'unknown'],
    ['a@example.notatld', 'unknown'],
  ])('%s is in category %s', async (email, category) => {
    expect((await intelligence(project, { email_address: email })).body.email.details.domain.category).toBe(category);
  });

  it("finds the category when its check waits for the project's lists (just changed, not read by the verdict)", async () => {
    const noRules = { version: '1.0', parent_rules: [] };
    await server.service.store.projectLists.add(sandbox.project.id, 'disposable', ['own-disposable.example']);
    const listed = await intelligence(sandbox, { email_address: 'a@own-disposable.example', custom_policy: noRules });
    expect(listed.body.email.details.domain.category).toBe('disposable');
    // Not listed: the wait gives false, and the next classification in order decides.
    await server.service.store.projectLists.add(sandbox.project.id, 'disposable', ['other-disposable.example']);
    const business = await intelligence(sandbox, { email_address: 'a@example.com', custom_policy: noRules });
    expect(business.body.email.details.domain.category).toBe('business');
  });

  it('a machine-made local part: fraud_pattern high_entropy:<score>', async () => {
    const { local } = (await intelligence(project, { email_address: 'x7kq2m9vz3p8@example.com' })).body.email.details;
    expect(local.has_fraud_pattern).toBe(true);
    expect(local.fraud_pattern).toMatch(/^high_entropy:\d+(\.\d+)?$/);
  });

  it('velocity by email groups plus-tag and gmail dot variants under one base', async () => {
    await intelligence(project, { email_address: 'grouped.user+a@gmail.com' });
    const second = await intelligence(project, { email_address: 'groupeduser+b@googlemail.com' });
    expect(second.body.velocity_by_email.count).toBe(1);
    expect(second.body.velocity_by_email.items[0].passed_email).toBe('grouped.user+a@gmail.com');
  });

  it('custom_policy on classification fields: domain_free and domain_disposable', async () => {
    const custom_policy = {
      version: '1.0',
      parent_rules: [
        { field: 'domain_disposable', operator: '==', target: { bool: true }, action: 'block' },
        { field: 'domain_free', operator: '==', target: { bool: true }, action: 'allow' },
      ],
    };
    expect((await intelligence(sandbox, { email_address: 'x@mailinator.com', custom_policy })).body.action).toBe('block');
    expect((await intelligence(sandbox, { email_address: 'jane@gmail.com', custom_policy })).body.action).toBe('allow');
    expect((await intelligence(sandbox, { email_address: 'jane@example.com', custom_policy })).body.action).toBe('ignore');
  });
});

describe('the intelligence verdict', () => {
  const plusBlocks = { version: '1.0', parent_rules: [{ field: 'email_plus_addressing', operator: '==', target: { bool: true }, action: 'block' }] };

  it('custom_policy: block when a block rule matches, ignore when none does', async () => {
    expect((await intelligence(sandbox, { email_address: 'a+b@example.com', custom_policy: plusBlocks })).body.action).toBe('block');
    expect((await intelligence(sandbox, { email_address: 'ab@example.com', custom_policy: plusBlocks })).body.action).toBe('ignore');
  });

  it('custom_policy: allow when only an allow rule matches; block wins over allow', async () => {
    const rules = [
      { field: 'email_valid_format', operator: '==', target: { bool: true }, action: 'allow' },
      { field: 'email_plus_addressing', operator: '==', target: { bool: true }, action: 'block' },
    ];
    for (const stop_on_block of [false, true]) {
      const custom_policy = { version: '1.0', stop_on_block, parent_rules: rules };
      expect((await intelligence(sandbox, { email_address: 'ab@example.com', custom_policy })).body.action).toBe('allow');
      expect((await intelligence(sandbox, { email_address: 'a+b@example.com', custom_policy })).body.action).toBe('block');
    }
  });

  it('names the parent rule that decided: the first matched with the verdict, its index; null when none matched', async () => {
    const rules = [
      { field: 'email_valid_format', operator: '==', target: { bool: true }, action: 'allow' },
      { field: 'domain_free', operator: '==', target: { bool: true }, action: 'allow' },
      { field: 'email_plus_addressing', operator: '==', target: { bool: true }, action: 'block' },
    ];
    const custom_policy = { version: '1.0', parent_rules: rules };
    const answer = async (email_address: string) => (await intelligence(sandbox, { email_address, custom_policy })).body;
    expect(await answer('jane+x@gmail.com')).toMatchObject({ action: 'block', parent_rule: { index: 2, ...rules[2] } });
    expect(await answer('jane@gmail.com')).toMatchObject({ action: 'allow', parent_rule: { index: 0, ...rules[0] } });
    expect(await answer('not-an-address')).toMatchObject({ action: 'ignore', parent_rule: null });
    // The project's own policy (default.yaml's intelligence section): a disposable domain is blocked by its first rule.
    const fromPolicy = (await intelligence(project, { email_address: 'x@mailinator.com' })).body;
    expect(fromPolicy).toMatchObject({ action: 'block', parent_rule: { index: 0, field: 'domain_disposable', target: { bool: true }, action: 'block' } });
  });

  it('custom_policy: an unknown fact never matches, not even with !=', async () => {
    const notPlus = { parent_rules: [{ field: 'email_plus_addressing', operator: '!=', target: { bool: true }, action: 'block' }] };
    expect((await intelligence(sandbox, { email_address: 'ab@example.com', custom_policy: notPlus })).body.action).toBe('block');
    expect((await intelligence(sandbox, { email_address: 'no-at-sign', custom_policy: notPlus })).body.action).toBe('ignore');
  });

  it('stores the decision with the revision of the rules that made it', async () => {
    await intelligence(sandbox, { email_address: 'revision@example.com', custom_policy: plusBlocks });
    await intelligence(sandbox, { email_address: 'revision2@example.com' });
    const rows = await server.service.store.knex('events').whereIn('email', ['revision@example.com', 'revision2@example.com']).orderBy('id');
    expect(rows.map((r: { policy_revision: string }) => r.policy_revision)).toEqual([
      expect.stringMatching(/^custom:[0-9a-f]{16}$/),
      server.service.policies.byName('default')!.revision,
    ]);
  });

  it('custom_policy: 50 rules are accepted, 51 are a 400', async () => {
    const rules = (n: number) => Array.from({ length: n }, () => ({ field: 'email_plus_addressing', operator: '==', target: { bool: true }, action: 'block' }));
    expect((await intelligence(sandbox, { email_address: 'a+b@example.com', custom_policy: { parent_rules: rules(50) } })).body.action).toBe('block');
    const res = await intelligence(sandbox, { email_address: 'a@example.com', custom_policy: { parent_rules: rules(51) } });
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(/custom_policy\.parent_rules: must NOT have more than 50 items/);
  });

  it('custom_policy: an unknown field is a 400 naming it and the known fields nearest to it', async () => {
    const res = await intelligence(sandbox, {
      email_address: 'a@example.com',
      custom_policy: { parent_rules: [{ field: 'domain_is_evil', operator: '==', target: { bool: true }, action: 'block' }] },
    });
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(
      /^custom_policy\.parent_rules\.0\.field: unknown field "domain_is_evil"; known fields \(the 5 nearest of \d+\): [a-z0-9_]+(, [a-z0-9_]+){4}$/,
    );
  });

  it('custom_policy: a field is a boolean fact by its policy name, or its interface alias, each giving the same verdict', async () => {
    const rule = (field: string) => ({ field, operator: '==', target: { bool: true }, action: 'block' });
    for (const field of ['is_free_provider_domain', 'domain_free']) {
      const res = await intelligence(sandbox, { email_address: 'jane@gmail.com', custom_policy: { parent_rules: [rule(field)] } });
      expect(res.status, field).toBe(200);
      expect(res.body).toMatchObject({ action: 'block', parent_rule: { index: 0, field } });
    }
    // Any boolean fact, not only those the interface names.
    const plus = await intelligence(sandbox, { email_address: 'jane+x@example.com', custom_policy: { parent_rules: [rule('has_plus_addressing')] } });
    expect(plus.body).toMatchObject({ action: 'block' });
    // A fact that is not boolean cannot be compared with a bool.
    const numeric = await intelligence(sandbox, { email_address: 'jane@example.com', custom_policy: { parent_rules: [rule('risk_score')] } });
    expectPlainError(numeric, 400);
    expect(numeric.body.error).toBe(
      'custom_policy.parent_rules.0.field: field "risk_score" is a fact of type integer, not a boolean: a parent rule compares a field with true or false',
    );
  });

  it('a verdict the risk score decided carries the score, its level and its breakdown; another verdict does not', async () => {
    const rules = [
      { field: 'email_high_risk', operator: '==', target: { bool: true }, action: 'block' },
      { field: 'domain_free', operator: '==', target: { bool: true }, action: 'allow' },
    ];
    const risky = await intelligence(sandbox, { email_address: 'x7kq2m9vz3p8@mailinator.com', custom_policy: { parent_rules: rules } });
    expect(risky.status).toBe(200);
    expect(risky.body).toMatchObject({ action: 'block', parent_rule: { index: 0, field: 'email_high_risk' } });
    expect(risky.body.risk).toEqual({ risk_score: 60, risk_level: 'high', risk_score_breakdown: { disposable_domain: 40, fraud_pattern_detection: 20 } });
    expect(Object.keys(risky.body).slice(0, 3)).toEqual(['action', 'parent_rule', 'risk']);
    const free = await intelligence(sandbox, { email_address: 'jane@gmail.com', custom_policy: { parent_rules: rules } });
    expect(free.body).toMatchObject({ action: 'allow', parent_rule: { index: 1 } });
    expect(free.body).not.toHaveProperty('risk');
  });

  it("without custom_policy, the project's policy decides (its intelligence section)", async () => {
    const policyYaml = [
      'version: "1.0"',
      'intelligence:',
      '  parent_rules:',
      '    - { field: email_plus_addressing, operator: "==", target: { bool: true }, action: block }',
    ].join('\n');
    const p = await server.createProject({ name: 'intel-policy', policyYaml });
    expect((await intelligence(p, { email_address: 'a+b@example.com' })).body.action).toBe('block');
    expect((await intelligence(p, { email_address: 'ab@example.com' })).body.action).toBe('ignore');
    // The default policy allows a well-formed address and blocks a malformed or disposable one.
    expect((await intelligence(project, { email_address: 'a+b@example.com' })).body.action).toBe('allow');
    expect((await intelligence(project, { email_address: 'a@mailinator.com' })).body.action).toBe('block');
    expect((await intelligence(project, { email_address: 'a@@example.com' })).body.action).toBe('block');
  });

  // Where verify blocks an address that is no mailbox at all, the default verdict blocks it too (issue 11).
  it.each([
    ['no top-level domain', 'jane@localhost'],
    ['an unknown top-level domain', 'jane@example.notatld'],
    ['an IPv4 literal', 'jane@[192.0.2.1]'],
    ['an IPv6 literal', 'jane@[IPv6:2001:db8::1]'],
    ['a numeric domain', 'jane@123.456'],
    ['an empty quoted local part', '""@example.com'],
    ['a local part over 64 octets', `${'a'.repeat(65)}@example.com`],
    ['a wildcard local part', 'ja*ne@example.com'],
  ])('the default verdict blocks what verify blocks: %s (%s)', async (_what, email_address) => {
    const verified = await post(server.url, '/v1/public/verify', { email_address }, bearer(project.keys.access_token));
    expect(verified.body.action).toBe('block');
    expect((await intelligence(project, { email_address })).body.action).toBe('block');
  });
});
