// The policy playground's calls (GET /v1/playground/policy, POST /v1/playground/evaluate): a sandbox
// project's access token only, the project's policy source, a text compiled aside with its problems at
// line and column or the verify answer with explain and steps, nothing stored, and PLAYGROUND=off.
// test/http/playground-browser.test.ts drives the page itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { PLAYGROUND_CSP } from '../../src/http/playground.js';
import { policiesDir } from '../../src/paths.js';
import { POLICY_LIMITS } from '../../src/policy/limits.js';
import { bearer, post, send, startService, type TestServer } from '../support/server.js';

const STORED = `version: "1.0"
checks:
  disposable_domain: { mode: hard, action: block }
`;

const BROKEN = `version: "1.0"
checks:
  disposable_domain: { mode: hard, action: block }
  structure: { mode: sometimes }
  local_plus: { mode: soft, action: maybe }
`;

let server: TestServer;
let lab: CreatedProject;
let stored: CreatedProject;
let shop: CreatedProject;
let burst: CreatedProject;

beforeAll(async () => {
  server = await startService({ env: { RATE_LIMIT_VERIFY: '20' } });
  lab = await server.createProject({ name: 'lab', sandbox: true });
  stored = await server.createProject({ name: 'stored', sandbox: true, policyYaml: STORED });
  shop = await server.createProject({ name: 'shop' });
  burst = await server.createProject({ name: 'burst', sandbox: true });
});
afterAll(() => server?.close());

const evaluate = (project: CreatedProject, body: unknown) => post(server.url, '/v1/playground/evaluate', body, bearer(project.keys.access_token));
const eventCount = async () => Number((await server.service.store.knex('events').count({ n: '*' }))[0]?.n);

describe('who may use it', () => {
  it('refuses a production project key with 403 saying what to do', async () => {
    for (const res of [
      await send('GET', server.url, '/v1/playground/policy', undefined, bearer(shop.keys.access_token)),
      await evaluate(shop, { policy: STORED, email_address: 'jane@example.com' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 403, status: false });
      expect(res.body.error).toContain('sandbox');
      expect(res.body.error).toContain('email-trust project create --name NAME --sandbox');
    }
  });

  it('refuses a missing key (401) and a key of another kind (401)', async () => {
    expect((await send('GET', server.url, '/v1/playground/policy')).status).toBe(401);
    const privateKey = await send('GET', server.url, '/v1/playground/policy', undefined, bearer(lab.keys.private_key));
    expect(privateKey.status).toBe(401);
    expect(privateKey.body.error).toContain('invalid credentials');
  });
});

describe('GET /v1/playground/policy', () => {
  it("gives a named policy's file and a stored policy's text, with their revisions", async () => {
    const named = await send('GET', server.url, '/v1/playground/policy', undefined, bearer(lab.keys.access_token));
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ project: 'lab', policy: 'default', source: readFileSync(join(policiesDir, 'default.yaml'), 'utf8') });
    expect(named.body.revision).toBe(named.body.in_use);
    const own = await send('GET', server.url, '/v1/playground/policy', undefined, bearer(stored.keys.access_token));
    expect(own.body).toMatchObject({ project: 'stored', policy: 'stored', source: STORED });
    expect(own.body.revision).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives a stored text that does not compile (the playground is where it gets fixed), with no revision in use', async () => {
    const broken = await server.createProject({ name: 'broken', sandbox: true });
    await server.service.store.projects.update(broken.project.id, { policy: 'broken', policySource: BROKEN });
    const res = await send('GET', server.url, '/v1/playground/policy', undefined, bearer(broken.keys.access_token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ project: 'broken', policy: 'broken', source: BROKEN, in_use: null });
  });
});

describe('POST /v1/playground/evaluate', () => {
  it('answers the problems of a text that does not compile, each at its line and column, sorted', async () => {
    const res = await evaluate(lab, { policy: BROKEN, email_address: 'jane@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.compiled).toBe(false);
    expect(res.body).not.toHaveProperty('result');
    expect(res.body.problems).toEqual([
      { line: 4, column: 22, path: '/checks/structure/mode', message: 'must be one of: hard, soft' },
      { line: 5, column: 37, path: '/checks/local_plus/action', message: expect.stringContaining('must be one of: none, allow') },
    ]);
  });

  it('answers a YAML syntax error at its line', async () => {
    const res = await evaluate(lab, { policy: 'version: "1.0"\nchecks:\n  structure: { mode: hard\n' });
    expect(res.body.compiled).toBe(false);
    expect(res.body.problems[0].line).toBeGreaterThanOrEqual(3);
  });

  it('decides an address with the text given, with explain and steps, and stores nothing', async () => {
    const before = await eventCount();
    const res = await evaluate(stored, { policy: `${STORED}  free_provider_domain: { mode: soft, action: challenge }\n`, email_address: 'jane@gmail.com' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ compiled: true, revision: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const { result } = res.body;
    expect(result.action).toBe('challenge');
    expect(result.steps).toEqual(expect.arrayContaining(['free_provider_domain']));
    expect(result.explain.contributions).toEqual([{ name: 'free_provider_domain', action: 'challenge' }]);
    expect(result.explain.why).toMatch(/^challenge is the most severe action that fired, from free_provider_domain/);
    expect(result.explain.entries.map((e: { name: string }) => e.name)).toEqual(['disposable_domain', 'free_provider_domain']);
    // The project's own policy and history are untouched: its verify still decides by the stored text.
    expect(await eventCount()).toBe(before);
    const verify = await post(server.url, '/v1/public/verify', { email_address: 'jane@gmail.com' }, bearer(stored.keys.access_token));
    expect(verify.body.action).toBe('allow');
    expect((await server.service.store.projects.getByName('stored'))?.policySource).toBe(STORED);
  });

  it('compiles only when no address is given', async () => {
    const res = await evaluate(lab, { policy: STORED });
    expect(res.body).toEqual({ compiled: true, revision: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it.each([
    ['no policy', { email_address: 'jane@example.com' }, 'policy'],
    ['a policy that is not text', { policy: 3 }, 'policy: must be of type string'],
    ['an unknown field', { policy: STORED, show_results: true }, 'show_results'],
    ['a bad ipv4_address', { policy: STORED, email_address: 'jane@example.com', ipv4_address: '999.1.1.1' }, 'ipv4_address'],
    [
      'a policy past 256 KiB',
      { policy: `# ${'x'.repeat(POLICY_LIMITS.bytes)}\n${STORED}` },
      `policy: must NOT have more than ${POLICY_LIMITS.bytes} characters`,
    ],
  ])('refuses %s with a 400 naming the field', async (_what, body, message) => {
    const res = await evaluate(lab, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('takes a whole policy in the body (over the 16 KiB of other calls), not past twice the policy limit', async () => {
    const strict = `${readFileSync(join(policiesDir, 'strict-signup.yaml'), 'utf8')}# ${'notes '.repeat(400)}\n`;
    expect(JSON.stringify({ policy: strict }).length).toBeGreaterThan(16 * 1024);
    expect((await evaluate(lab, { policy: strict, email_address: 'jane@example.com' })).body.compiled).toBe(true);
    const huge = await evaluate(lab, { policy: 'x'.repeat(2 * POLICY_LIMITS.bytes) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe(`request body is larger than ${2 * POLICY_LIMITS.bytes} bytes`);
  });

  it("shares the access token's verify rate limit", async () => {
    const replies = await Promise.all(Array.from({ length: 25 }, () => evaluate(burst, { policy: STORED })));
    expect(replies.map((r) => r.status)).toContain(429);
    expect(replies.find((r) => r.status === 429)?.body.error).toContain('at most 20 requests per second');
  });
});

describe('the page', () => {
  it('is served with a CSP that allows nothing from another origin and no inline code', async () => {
    const res = await fetch(`${server.url}/playground`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(PLAYGROUND_CSP);
    expect(PLAYGROUND_CSP).not.toContain('unsafe-inline');
    expect(await res.text()).toContain('/playground/ace/ace.js');
    for (const asset of ['ace.js', 'mode-yaml.js', 'ace.css', 'theme/textmate.css', 'main-1.png'])
      expect((await fetch(`${server.url}/playground/ace/${asset}`)).status).toBe(200);
    const svg = await fetch(`${server.url}/playground/ace/main-22.svg`);
    expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    // Only ace's images are served from its folder, nothing else in it (nor a path out of it).
    for (const other of ['main-999.png', 'ace.css.map', 'package.json', '..%2Fpackage.json'])
      expect((await fetch(`${server.url}/playground/ace/${other}`)).status).toBe(404);
  });
});

describe('PLAYGROUND=off', () => {
  it('has no page and no calls (404)', async () => {
    const off = await startService({ env: { PLAYGROUND: 'off' } });
    try {
      const project = await off.createProject({ name: 'lab', sandbox: true });
      expect((await fetch(`${off.url}/playground`)).status).toBe(404);
      const res = await post(off.url, '/v1/playground/evaluate', { policy: STORED }, bearer(project.keys.access_token));
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
