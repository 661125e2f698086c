// The policy limits through the real HTTP app: the playground answers a text past a limit 400 in its error
// shape, naming the limit and the line; the worst texts within the limits are answered (their problems), never
// 5xx; a request's custom_policy too deep is refused 400 (413 past the body limit); and another tenant's
// verify is answered while a sandbox key sends such texts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { POLICY_LIMITS } from '../../src/policy/limits.js';
import { DEEP_POLICIES, DEPTH_REFUSAL } from '../support/deep-policies.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let lab: CreatedProject;
let shop: CreatedProject;

beforeAll(async () => {
  server = await startService();
  lab = await server.createProject({ name: 'lab', sandbox: true });
  shop = await server.createProject({ name: 'shop' });
});
afterAll(() => server?.close());

const evaluate = (policy: string) => post(server.url, '/v1/playground/evaluate', { policy }, bearer(lab.keys.access_token));

const HEAD = 'version: "1.0"\n';
/** Texts within every limit that cost the parser the most (a syntax error on each of thousands of lines). */
const WORST_WITHIN_LIMITS = [
  HEAD + '- 1\n'.repeat(Math.floor((POLICY_LIMITS.nodes - 10) / 2)),
  HEAD + '- &a x\n'.repeat(Math.floor((POLICY_LIMITS.nodes - 10) / 3)),
  HEAD + '{!t \n'.repeat(27),
  `${HEAD}checks:\n${Array.from({ length: POLICY_LIMITS.checks }, (_, i) => `  c${i}: { mode: hardd, action: blok }\n`).join('')}`,
];

describe('the playground', () => {
  it.each(DEEP_POLICIES)('answers a policy %s 400, naming the limit and its line', async (_name, text) => {
    const res = await evaluate(text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      error: expect.stringMatching(new RegExp(`^policy: ${DEPTH_REFUSAL} \\(line \\d+\\)$`)),
      id: expect.any(String),
      status: false,
    });
  });

  it('answers the worst texts within the limits with their problems, at most the limit of them', async () => {
    for (const text of WORST_WITHIN_LIMITS) {
      const res = await evaluate(text);
      expect(res.status).toBe(200);
      expect(res.body.compiled).toBe(false);
      expect(res.body.problems.length).toBeGreaterThan(0);
      expect(res.body.problems.length).toBeLessThanOrEqual(POLICY_LIMITS.problems);
    }
  });
});

describe("a request's custom_policy", () => {
  const intelligence = (body: string) => post(server.url, '/v1/intelligence', body, { 'x-api-key': lab.keys.private_key, 'content-type': 'application/json' });

  it('100,000 levels deep: 413, the body limit', async () => {
    const res = await intelligence(`{"email_address":"jane@example.com","custom_policy":{"parent_rules":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
    expect(res.status).toBe(413);
  });

  it('200 levels deep: 400 naming the field', async () => {
    const target = `${'{"bool":'.repeat(200)}true${'}'.repeat(200)}`;
    const res = await intelligence(
      `{"email_address":"jane@example.com","custom_policy":{"parent_rules":[{"field":"domain_free","operator":"==","target":${target},"action":"block"}]}}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^custom_policy\.parent_rules\.0\.target\.bool: /);
  });
});

describe('a bystander', () => {
  it('is answered while a sandbox key sends deep and costly policy texts: every answer a 200, a 400 or a 503 with Retry-After', async () => {
    const texts = [...DEEP_POLICIES.map(([, text]) => text), ...WORST_WITHIN_LIMITS, ...WORST_WITHIN_LIMITS];
    const sent = texts.map((text) => evaluate(text));
    const bystander = await post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(shop.keys.access_token));
    expect(bystander.status).toBe(200);
    expect(bystander.body.action).toEqual(expect.any(String));
    for (const res of await Promise.all(sent)) {
      expect([200, 400, 503]).toContain(res.status);
      if (res.status === 503) expect(res.headers.get('retry-after')).toBe('1');
    }
    // Ten checks in turn on a thread of the lowest priority: on a machine busy with other test files they wait for a core.
  }, 90_000);
});
