// GET /v1/openapi.json: a valid OpenAPI 3.1 document (checked by an OpenAPI validator) that describes
// what the running service really answers. Every call below, successes and refusals of the four
// operations, is checked against the document the same server serves (status documented, required
// headers present, body valid against the response schema), so the document cannot drift from the code.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { type Answer, OpenApiConformance } from '../support/openapi-conformance.js';
import { apiKey, bearer, type Reply, send, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let limited: TestServer;
let shop: CreatedProject;
let sandbox: CreatedProject;
let everything: CreatedProject;
let broken: CreatedProject;
let limitedShop: CreatedProject;

/** A policy enabling every check the plugins offer, in soft mode: every flag and analyzed_data field can appear. */
function everyCheckPolicy(checks: Iterable<string>): string {
  const lines = [...checks].map((name) => `  ${name}: { mode: soft${name === 'specific_domains' ? ', options: { domains: [example.com] }' : ''} }`);
  return ['version: "1.0"', 'checks:', ...lines, ''].join('\n');
}

beforeAll(async () => {
  server = await startService();
  shop = await server.createProject({ name: 'shop' });
  sandbox = await server.createProject({ name: 'lab', sandbox: true });
  everything = await server.createProject({ name: 'everything', policyYaml: everyCheckPolicy(server.service.catalog.checkOwner.keys()) });
  broken = await createProjectWithKeys(server.service.store, { name: 'broken', policy: 'no-such-policy' });
  limited = await startService({
    env: {
      RATE_LIMIT_VERIFY: '1',
      RATE_LIMIT_IP: '1',
      RATE_LIMIT_INTELLIGENCE: '1',
      RATE_LIMIT_FINGERPRINT: '1',
      RATE_LIMIT_FEEDBACK: '1',
      INTELLIGENCE_FORM: 'A',
    },
  });
  limitedShop = await limited.createProject({ name: 'limited' });
});
afterAll(async () => {
  await server?.close();
  await limited?.close();
});

async function documentOf(target: TestServer): Promise<Record<string, unknown>> {
  const res = await send('GET', target.url, '/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return res.body;
}

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await documentOf(server);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('carries the interface version 1.0.0, as the specification does, and the build that serves it apart', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const { info }: any = await documentOf(server);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(info.version).toBe('1.0.0');
    expect(info['x-service-version']).toBe(version);
  });

  it('gives every enum the type of its values (string for the vocabularies, the flags and the analyzed_data values)', async () => {
    const enums: { where: string; type: unknown; values: unknown[] }[] = [];
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const schema = node as { enum?: unknown; type?: unknown };
      if (Array.isArray(schema.enum)) enums.push({ where, type: schema.type, values: schema.enum });
      for (const [key, value] of Object.entries(node)) if (key !== 'enum') walk(value, `${where}/${key}`);
    };
    walk(await documentOf(server), '');
    expect(enums.length).toBeGreaterThan(20);
    expect(enums.filter((e) => e.type !== 'string' || !e.values.every((v) => typeof v === 'string')).map((e) => e.where)).toEqual([]);
    expect(enums.map((e) => e.where)).toEqual(
      expect.arrayContaining(['/components/schemas/Action', '/components/schemas/VerifyResponse/properties/risk_level']),
    );
  });

  it('needs no key, and is the same on every call (built once)', async () => {
    const first = await send('GET', server.url, '/v1/openapi.json');
    const second = await send('GET', server.url, '/v1/openapi.json');
    expect(second.text).toBe(first.text);
  });

  it('describes the four operations with their authentication', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const document: any = await documentOf(server);
    const security = (path: string) => document.paths[path].post.security;
    expect(security('/v1/public/verify')).toEqual([{ accessToken: [] }]);
    expect(security('/v1/intelligence')).toEqual([{ privateKey: [] }]);
    expect(security('/v1/fingerprint')).toEqual([{ publicKey: [] }]);
    expect(security('/v1/public/ip')).toEqual([]);
    expect(document.components.securitySchemes).toEqual({
      accessToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      privateKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      publicKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    });
    expect(Object.keys(document.paths['/v1/public/verify'].post.responses)).toEqual(['200', '400', '401', '413', '415', '429', '500', '503']);
    expect(document.paths['/v1/public/verify'].post.responses['429'].headers['Retry-After'].required).toBe(true);
  });

  it('takes the request schemas from schemas/, with the service’s own limits kept as x- extensions', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const document: any = await documentOf(server);
    const email = document.components.schemas.VerifyRequest.properties.email_address;
    expect(email).toMatchObject({ type: 'string', minLength: 1, maxLength: 1024, 'x-max-utf8-bytes': 800, 'x-no-control-characters': true });
    expect(Object.keys(email)).not.toContain('maxUtf8Bytes');
    expect(email.description).toContain('Address to check');
    expect(document.components.schemas.IntelligenceRequest.properties.custom_policy.properties.parent_rules.items).toEqual({
      $ref: '#/components/schemas/ParentRule',
    });
    expect(JSON.stringify(document)).not.toMatch(/"\$ref":"(?!#\/components\/schemas\/)/);
  });

  it('gives request examples that its own request schemas accept', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const document: any = await documentOf(server);
    const checker = new OpenApiConformance(document);
    const examples = ['/v1/public/verify', '/v1/intelligence', '/v1/fingerprint'].map((path) => [
      path,
      document.paths[path].post.requestBody.content['application/json'].example,
    ]);
    for (const [path, example] of examples) {
      expect(example, path).toBeDefined();
      expect(checker.requestProblems('POST', path, example)).toEqual([]);
    }
    expect(checker.requestProblems('POST', '/v1/public/verify', { emial: 'a@example.com' }).join()).toMatch(/must have required property/);
  });

  it('lists every flag and analyzed_data field of the plugins, with its description', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const verify: any = ((await documentOf(server)).components as any).schemas.VerifyResponse;
    expect(verify.properties.is_disposable_domain).toEqual({ type: ['boolean', 'null'], description: expect.stringContaining('null: not checked') });
    expect(verify.properties.analyzed_data.properties.mx_record_status).toMatchObject({ enum: ['valid', 'invalid', 'not_checked'] });
    expect(verify.properties.analyzed_data.properties.total_email_in_ip).toMatchObject({ type: 'string', pattern: '^-?[0-9]+$' });
    expect(verify.additionalProperties).toBe(false);
  });

  it('says which intelligence form and rate limits this instance applies', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const b: any = await documentOf(server);
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const a: any = await documentOf(limited);
    const okSchema = (d: typeof a) => d.paths['/v1/intelligence'].post.responses['200'].content['application/json'].schema;
    expect(okSchema(b)).toEqual({ $ref: '#/components/schemas/IntelligenceResponseFormB' });
    expect(okSchema(a)).toEqual({ $ref: '#/components/schemas/IntelligenceResponseFormA' });
    expect(a.paths['/v1/public/verify'].post.description).toContain('at most 1 requests per second per access token');
    expect(b.paths['/v1/public/verify'].post.description).toContain('none on this instance');
  });
});

type Target = 'main' | 'limited';

interface Call {
  name: string;
  target?: Target;
  method?: string;
  path: string;
  body?: unknown;
  headers?: () => Record<string, string>;
  /** Calls made first on the same target (e.g. to use up a rate limit or build velocity). */
  repeat?: number;
  status: number;
}

const fingerprintOf = async (project: CreatedProject): Promise<string> =>
  (await send('POST', server.url, '/v1/fingerprint', {}, apiKey(project.keys.public_key))).body.fingerprint;

let shopFingerprint = '';
let sandboxFingerprint = '';

const CALLS: Call[] = [
  // verify
  {
    name: 'verify, address only',
    path: '/v1/public/verify',
    body: { email_address: 'jane.doe@example.com' },
    headers: () => bearer(shop.keys.access_token),
    status: 200,
  },
  {
    name: 'verify, default policy, everything shown, third address from one IP',
    path: '/v1/public/verify',
    body: { email_address: 'cat@example.org', ipv4_address: '198.51.100.20', show_results: true, show_steps: true },
    headers: () => bearer(shop.keys.access_token),
    repeat: 3,
    status: 200,
  },
  {
    name: 'verify, every check enabled, typo, IPv4 and IPv6',
    path: '/v1/public/verify',
    body: { email_address: 'Jane.Doe+news@gmial.com', ipv4_address: '203.0.113.9', ipv6_address: '2001:db8::1', show_results: true, show_steps: true },
    headers: () => bearer(everything.keys.access_token),
    repeat: 6,
    status: 200,
  },
  {
    name: 'verify, every check enabled, internationalised address',
    path: '/v1/public/verify',
    body: { email_address: 'jöse@bücher.example', show_results: true, show_steps: true },
    headers: () => bearer(everything.keys.access_token),
    status: 200,
  },
  {
    name: 'verify, every check enabled, not an address',
    path: '/v1/public/verify',
    body: { email_address: 'not an address', show_results: true, show_steps: true },
    headers: () => bearer(everything.keys.access_token),
    status: 200,
  },
  {
    name: 'verify with a fingerprint',
    path: '/v1/public/verify',
    body: { email_address: 'ann@example.com', show_results: true },
    headers: () => bearer(shop.keys.access_token),
    status: 200,
  },
  {
    name: 'verify, sandbox, show_explain',
    path: '/v1/public/verify',
    body: { email_address: 'jane@mailinator.com', ipv4_address: '198.51.100.30', show_results: true, show_explain: true },
    headers: () => bearer(sandbox.keys.access_token),
    status: 200,
  },
  {
    name: 'verify, show_explain outside a sandbox',
    path: '/v1/public/verify',
    body: { email_address: 'jane@example.com', show_explain: true },
    headers: () => bearer(shop.keys.access_token),
    status: 400,
  },
  { name: 'verify, unknown field', path: '/v1/public/verify', body: { emial: 'a@example.com' }, headers: () => bearer(shop.keys.access_token), status: 400 },
  { name: 'verify, not JSON', path: '/v1/public/verify', body: '{"email_address":', headers: () => bearer(shop.keys.access_token), status: 400 },
  { name: 'verify, no key', path: '/v1/public/verify', body: { email_address: 'a@example.com' }, status: 401 },
  {
    name: 'verify, a key of another kind',
    path: '/v1/public/verify',
    body: { email_address: 'a@example.com' },
    headers: () => bearer(shop.keys.private_key),
    status: 401,
  },
  {
    name: 'verify, body too large',
    path: '/v1/public/verify',
    body: { email_address: 'a'.repeat(20_000) },
    headers: () => bearer(shop.keys.access_token),
    status: 413,
  },
  {
    name: 'verify, unknown Content-Encoding',
    path: '/v1/public/verify',
    body: '{}',
    headers: () => ({ ...bearer(shop.keys.access_token), 'content-encoding': 'foo' }),
    status: 415,
  },
  {
    name: 'verify, a project whose policy is gone',
    path: '/v1/public/verify',
    body: { email_address: 'a@example.com' },
    headers: () => bearer(broken.keys.access_token),
    status: 500,
  },
  {
    name: 'verify, over the rate limit',
    target: 'limited',
    path: '/v1/public/verify',
    body: { email_address: 'a@example.com' },
    headers: () => bearer(limitedShop.keys.access_token),
    repeat: 1,
    status: 429,
  },
  // intelligence
  {
    name: 'intelligence, form B, no fingerprint',
    path: '/v1/intelligence',
    body: { email_address: 'Jane.Doe+x@gmail.com' },
    headers: () => apiKey(shop.keys.private_key),
    repeat: 2,
    status: 200,
  },
  {
    name: 'intelligence, form B, fingerprint and custom_policy (sandbox)',
    path: '/v1/intelligence',
    body: {
      email_address: 'bob@example.org',
      custom_policy: {
        version: '1.0',
        stop_on_block: true,
        parent_rules: [{ field: 'domain_disposable', operator: '==', target: { bool: true }, action: 'block' }],
      },
    },
    headers: () => apiKey(sandbox.keys.private_key),
    repeat: 2,
    status: 200,
  },
  { name: 'intelligence, not an address', path: '/v1/intelligence', body: { email_address: '@@' }, headers: () => apiKey(shop.keys.private_key), status: 200 },
  {
    name: 'intelligence, custom_policy outside a sandbox',
    path: '/v1/intelligence',
    body: { email_address: 'a@example.com', custom_policy: {} },
    headers: () => apiKey(shop.keys.private_key),
    status: 400,
  },
  {
    name: 'intelligence, a forged fingerprint',
    path: '/v1/intelligence',
    body: { email_address: 'a@example.com', fingerprint: 'fp1.k.AAAA' },
    headers: () => apiKey(shop.keys.private_key),
    status: 400,
  },
  { name: 'intelligence, no key', path: '/v1/intelligence', body: { email_address: 'a@example.com' }, status: 401 },
  {
    name: 'intelligence, body too large',
    path: '/v1/intelligence',
    body: { email_address: 'a'.repeat(20_000) },
    headers: () => apiKey(shop.keys.private_key),
    status: 413,
  },
  {
    name: 'intelligence, a project whose policy is gone',
    path: '/v1/intelligence',
    body: { email_address: 'a@example.com' },
    headers: () => apiKey(broken.keys.private_key),
    status: 500,
  },
  {
    name: 'intelligence, form A',
    target: 'limited',
    path: '/v1/intelligence',
    body: { email_address: 'a@example.com' },
    headers: () => apiKey(limitedShop.keys.private_key),
    status: 200,
  },
  {
    name: 'intelligence, over the rate limit',
    target: 'limited',
    path: '/v1/intelligence',
    body: { email_address: 'a@example.com' },
    headers: () => apiKey(limitedShop.keys.private_key),
    repeat: 1,
    status: 429,
  },
  // feedback (on the decisions of the verify calls above)
  {
    name: 'feedback, the first label of a decision',
    path: '/v1/feedback',
    body: { email_address: 'jane.doe@example.com', label: 'fraud', note: 'ticket 4411' },
    headers: () => apiKey(shop.keys.private_key),
    status: 201,
  },
  {
    name: 'feedback, the same label again',
    path: '/v1/feedback',
    body: { email_address: 'jane.doe@example.com', label: 'fraud', note: 'ticket 4411' },
    headers: () => apiKey(shop.keys.private_key),
    status: 200,
  },
  {
    name: 'feedback, an unknown decision',
    path: '/v1/feedback',
    body: { decision_id: '12345678', label: 'fraud' },
    headers: () => apiKey(shop.keys.private_key),
    status: 404,
  },
  {
    name: 'feedback, an unknown label',
    path: '/v1/feedback',
    body: { decision_id: '1', label: 'scam' },
    headers: () => apiKey(shop.keys.private_key),
    status: 400,
  },
  {
    name: 'feedback, the access token',
    path: '/v1/feedback',
    body: { decision_id: '1', label: 'fraud' },
    headers: () => apiKey(shop.keys.access_token),
    status: 401,
  },
  {
    name: 'feedback, over the rate limit',
    target: 'limited',
    path: '/v1/feedback',
    body: { decision_id: '1', label: 'fraud' },
    headers: () => apiKey(limitedShop.keys.private_key),
    repeat: 1,
    status: 429,
  },
  // fingerprint
  { name: 'fingerprint, {}', path: '/v1/fingerprint', body: {}, headers: () => apiKey(shop.keys.public_key), status: 200 },
  { name: 'fingerprint, no body', path: '/v1/fingerprint', headers: () => apiKey(shop.keys.public_key), status: 200 },
  {
    name: 'fingerprint, device signals',
    path: '/v1/fingerprint',
    body: { device: { browser_id: 'abcdefghijklmnop', timezone: 'Europe/Paris', languages: ['fr'], screen: '1920x1080x24', touch_points: 0 } },
    headers: () => apiKey(shop.keys.public_key),
    status: 200,
  },
  {
    name: 'fingerprint, unknown field',
    path: '/v1/fingerprint',
    body: { device: { colour: 'red' } },
    headers: () => apiKey(shop.keys.public_key),
    status: 400,
  },
  { name: 'fingerprint, wrong key', path: '/v1/fingerprint', body: {}, headers: () => apiKey(shop.keys.private_key), status: 401 },
  {
    name: 'fingerprint, over the rate limit',
    target: 'limited',
    path: '/v1/fingerprint',
    body: {},
    headers: () => apiKey(limitedShop.keys.public_key),
    repeat: 1,
    status: 429,
  },
  // ip
  { name: 'ip', path: '/v1/public/ip', status: 200 },
  { name: 'ip, not JSON', path: '/v1/public/ip', body: 'nope', status: 400 },
  { name: 'ip, body too large', path: '/v1/public/ip', body: { pad: 'x'.repeat(20_000) }, status: 413 },
  { name: 'ip, over the rate limit', target: 'limited', path: '/v1/public/ip', repeat: 1, status: 429 },
  // the browser script and the document itself
  { name: 'the browser script', method: 'GET', path: '/v1/fingerprint.js', status: 200 },
  { name: 'the document', method: 'GET', path: '/v1/openapi.json', status: 200 },
  { name: 'liveness', method: 'GET', path: '/healthz', status: 200 },
  { name: 'readiness', method: 'GET', path: '/readyz', status: 200 },
  { name: 'metrics', method: 'GET', path: '/metrics', status: 200 },
];

describe('real answers match the document', () => {
  const checkers = new Map<Target, OpenApiConformance>();
  beforeAll(async () => {
    checkers.set('main', new OpenApiConformance(await documentOf(server)));
    checkers.set('limited', new OpenApiConformance(await documentOf(limited)));
    shopFingerprint = await fingerprintOf(shop);
    sandboxFingerprint = await fingerprintOf(sandbox);
  });

  it.each(CALLS)('$name → $status', async (call) => {
    const target = call.target === 'limited' ? limited : server;
    const method = call.method ?? 'POST';
    let body = call.body;
    if (call.name === 'verify with a fingerprint') body = { ...(body as object), fingerprint: shopFingerprint };
    if (call.name.includes('fingerprint and custom_policy')) body = { ...(body as object), fingerprint: sandboxFingerprint };
    for (let i = 0; i < (call.repeat ?? 0); i++) await send(method, target.url, call.path, body, call.headers?.());
    const reply = await send(method, target.url, call.path, body, call.headers?.());
    expect(reply.status, reply.text).toBe(call.status);
    const checker = checkers.get(call.target ?? 'main') as OpenApiConformance;
    // What the service accepted, the document accepts too.
    if (reply.status === 200 && typeof body === 'object') expect(checker.requestProblems(method, call.path, body)).toEqual([]);
    expect(checker.problems(method, call.path, reply)).toEqual([]);
  });

  it('the fingerprint script revalidated: 304, documented', async () => {
    const first = await send('GET', server.url, '/v1/fingerprint.js');
    const again = await send('GET', server.url, '/v1/fingerprint.js', undefined, {
      'if-none-match': first.headers.get('etag') ?? '',
      // As a browser revalidates; fetch alone would add `Cache-Control: no-cache` to a conditional request.
      'cache-control': 'max-age=0',
    });
    expect(again.status).toBe(304);
    expect((checkers.get('main') as OpenApiConformance).problems('GET', '/v1/fingerprint.js', again)).toEqual([]);
  });
});

describe('real answers with the network checks on (DNS and RDAP servers of the test) match the document', () => {
  let dns: TestDnsServer;
  let rdap: Server;
  let networked: TestServer;
  let project: CreatedProject;
  let checker: OpenApiConformance;

  beforeAll(async () => {
    dns = await startDnsServer();
    rdap = createServer((req, res) => {
      const registered: Record<string, string> = { 'mx.test': '2001-05-01T00:00:00Z', 'aonly.test': new Date(Date.now() - 5 * 86_400_000).toISOString() };
      const date = registered[decodeURIComponent(req.url ?? '').replace(/^.*\/domain\//, '')];
      if (!date) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(JSON.stringify({ events: [{ eventAction: 'registration', eventDate: date }] }));
    });
    await new Promise<void>((done) => rdap.listen(0, '127.0.0.1', done));
    networked = await startService({
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
    project = await networked.createProject({ name: 'networked', policyYaml: everyCheckPolicy(networked.service.catalog.checkOwner.keys()) });
    checker = new OpenApiConformance(await documentOf(networked));
  });
  afterAll(async () => {
    await networked?.close();
    await new Promise((done) => rdap?.close(done));
    await dns?.close();
  });

  it.each(['jane@mx.test', 'jane@aonly.test', 'jane@nx.test'])('verify and intelligence of %s', async (email) => {
    const verify = await send(
      'POST',
      networked.url,
      '/v1/public/verify',
      { email_address: email, show_results: true, show_steps: true },
      bearer(project.keys.access_token),
    );
    expect(verify.status).toBe(200);
    expect(verify.body.analyzed_data.mx_record_status).toMatch(/^(valid|invalid)$/);
    expect(checker.problems('POST', '/v1/public/verify', verify)).toEqual([]);
    const intelligence = await send('POST', networked.url, '/v1/intelligence', { email_address: email }, apiKey(project.keys.private_key));
    expect(intelligence.status).toBe(200);
    expect(checker.problems('POST', '/v1/intelligence', intelligence)).toEqual([]);
  });
});

describe('the conformance check finds drift', () => {
  let checker: OpenApiConformance;
  beforeAll(async () => {
    checker = new OpenApiConformance(await documentOf(server));
  });
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer & Pick<Reply, 'status'> => ({
    status,
    body,
    text: JSON.stringify(body),
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
  });

  it.each([
    ['a field the document does not know', '/v1/public/verify', json(200, { action: 'allow', is_brand_new: true }), /must NOT have additional properties/],
    ['an action outside the vocabulary', '/v1/public/verify', json(200, { action: 'maybe' }), /must be equal to one of the allowed values/],
    [
      'an analyzed_data number that is not a string',
      '/v1/public/verify',
      json(200, { action: 'allow', analyzed_data: { total_email_in_ip: 3 } }),
      /must be string/,
    ],
    ['intelligence without velocity_by_ip (form A on a form B instance)', '/v1/intelligence', json(200, { action: 'allow' }), /must have required property/],
    ['a 429 without Retry-After', '/v1/public/ip', json(429, { code: 429, error: 'slow down', id: 'x', status: false }), /required header Retry-After/],
    ['an error body of the other shape', '/v1/public/ip', json(400, { error: 'bad', code: 400 }), /required property 'id'/],
    ['a status the operation does not document', '/v1/public/ip', json(418, {}), /status not documented/],
  ])('%s', (_name, path, answer, problem) => {
    const problems = checker.problems('POST', path, answer);
    expect(problems.join('\n')).toMatch(problem);
  });
});
