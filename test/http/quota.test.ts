// The monthly quota: `project set-quota NAME N` (none by default). Verify and intelligence calls of a
// non-sandbox project count; past the quota, 429 in the endpoint's shape, saying the monthly quota is used
// up; sandbox calls never count; a new calendar month (UTC) starts from zero; `project usage` prints this
// month's and last month's counts. Without Redis (SQLite, one process) and with Redis (two services on one
// PostgreSQL), the count is exact.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { nextMonthStart } from '../../src/service/quota.js';
import { monthOf } from '../../src/store/usage.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const verify = (server: TestServer, project: CreatedProject) =>
  post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(project.keys.access_token));
const intelligence = (server: TestServer, project: CreatedProject) =>
  post(server.url, '/v1/intelligence', { email_address: 'jane@example.com' }, apiKey(project.keys.private_key));

/** `email-trust …` in-process on DATABASE_URL: stdout and exit code. */
async function cli(databaseUrl: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0),
  ];
  try {
    return { code: await main(['project', ...args]), out: out.join(''), err: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
    // Assigning undefined would store the string "undefined" for every later test of this worker.
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

it.each([
  { at: '2026-11-30T23:59:59.999Z', month: '2026-11', renews: '2026-12-01T00:00:00.000Z' },
  { at: '2026-12-01T00:00:00.000Z', month: '2026-12', renews: '2027-01-01T00:00:00.000Z' },
  { at: '2027-12-31T23:59:59.999Z', month: '2027-12', renews: '2028-01-01T00:00:00.000Z' },
  { at: '2028-02-29T12:00:00.000Z', month: '2028-02', renews: '2028-03-01T00:00:00.000Z' },
])('counts a call at $at in $month, renewed at $renews (calendar months, UTC)', ({ at, month, renews }) => {
  expect(monthOf(Date.parse(at))).toBe(month);
  expect(new Date(nextMonthStart(Date.parse(at))).toISOString()).toBe(renews);
});

const counted = [
  { where: 'in memory (no Redis)', env: (): Record<string, string> => ({}) },
  { where: 'in Redis', env: (): Record<string, string> => ({ REDIS_URL, REDIS_PREFIX: `email-trust-test:${randomUUID()}:` }) },
  // Nothing listens on port 1: every count falls back to this process's.
  { where: 'in memory while Redis does not answer', env: (): Record<string, string> => ({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_TIMEOUT_MS: '50' }) },
];

describe.each(counted)('monthly quota of one service counted $where, with a clock the test moves', ({ env }) => {
  let server: TestServer;
  // 2026-11-30 23:59:00 UTC: the last minute of November.
  let clock = Date.UTC(2026, 10, 30, 23, 59, 0);
  let databaseUrl: string;
  beforeAll(async () => {
    server = await startService({ env: env(), compose: { now: () => clock } });
    databaseUrl = server.service.config.databaseUrl;
  });
  afterAll(() => server.close());

  it('has no quota by default, and counts nothing for a sandbox project', async () => {
    const open = await server.createProject({ name: 'open' });
    const sandbox = await server.createProject({ name: 'sandbox', sandbox: true });
    expect((await cli(databaseUrl, 'set-quota', 'sandbox', '1')).code).toBe(0);
    for (let n = 0; n < 8; n++) {
      expect((await verify(server, open)).status).toBe(200);
      expect((await verify(server, sandbox)).status).toBe(200);
    }
    const usage = JSON.parse((await cli(databaseUrl, 'usage', 'open', '--json')).out);
    expect(usage.monthly_quota).toBeNull();
    const sandboxUsage = JSON.parse((await cli(databaseUrl, 'usage', 'sandbox', '--json')).out);
    expect(sandboxUsage.monthly_quota).toBe(1);
    expect(sandboxUsage.months.map((m: { calls: number }) => m.calls)).toEqual([0, 0]);
  });

  it('refuses the 6th call of a quota of 5 with 429 in each endpoint’s shape; a new month admits again', async () => {
    const acme = await server.createProject({ name: 'acme' });
    const set = await cli(databaseUrl, 'set-quota', 'acme', '5');
    expect(set.code).toBe(0);
    expect(set.out).toMatch(/monthly quota of 5 calls/);

    // An invalid request is refused before it counts.
    expect((await post(server.url, '/v1/public/verify', { email_address: 7 }, bearer(acme.keys.access_token))).status).toBe(400);
    const statuses: number[] = [];
    for (let n = 0; n < 3; n++) statuses.push((await verify(server, acme)).status);
    for (let n = 0; n < 2; n++) statuses.push((await intelligence(server, acme)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);

    const sixth = await verify(server, acme);
    expectStatusError(sixth, 429);
    expect(sixth.body.error).toMatch(
      /monthly quota used up: this project may make 5 verify and intelligence calls per calendar month \(UTC\); it renews on 2026-12-01T00:00:00\.000Z/,
    );
    expect(sixth.headers.get('retry-after')).toBe('60');
    const plain = await intelligence(server, acme);
    expectPlainError(plain, 429);
    expect(plain.body.error).toMatch(/monthly quota used up/);
    expect(server.service.limits.counters().quotaExceeded).toBe(2);

    clock = Date.UTC(2026, 11, 1, 0, 0, 0);
    expect((await verify(server, acme)).status).toBe(200);
    const usage = await cli(databaseUrl, 'usage', 'acme');
    expect(usage.out).toMatch(/quota 5/);
    // The command reads the real clock: the months it prints are this month and the last.
    const json = JSON.parse((await cli(databaseUrl, 'usage', 'acme', '--json')).out);
    expect(json.monthly_quota).toBe(5);
    expect(await server.service.store.usage.get(acme.project.id, '2026-11')).toBe(5);
    expect(await server.service.store.usage.get(acme.project.id, '2026-12')).toBe(1);
  });

  it('clears a quota with --none, and refuses a bad number', async () => {
    const beta = await server.createProject({ name: 'beta' });
    expect((await cli(databaseUrl, 'set-quota', 'beta', '0')).code).toBe(0);
    expectStatusError(await verify(server, beta), 429);
    const cleared = await cli(databaseUrl, 'set-quota', 'beta', '--none');
    expect(cleared.out).toMatch(/no monthly quota/);
    expect((await server.service.store.projects.getByName('beta'))?.monthlyQuota).toBeNull();
    // A running service applies it within 5 s (its key cache); an update through its own store, at once.
    await server.service.store.projects.update(beta.project.id, { monthlyQuota: null });
    expect((await verify(server, beta)).status).toBe(200);
    expect((await cli(databaseUrl, 'set-quota', 'beta', 'lots')).code).toBe(2);
    expect((await cli(databaseUrl, 'set-quota', 'beta')).code).toBe(2);
  });
});

describe('monthly quota across two services on one PostgreSQL and one Redis', () => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `email-trust-test:${randomUUID()}:` };
    servers.push(await startService({ database: 'postgres', env }));
    servers.push(await startService({ databaseUrl: servers[0]?.service.config.databaseUrl, env }));
  });
  afterAll(async () => {
    await servers[1]?.close();
    await servers[0]?.close();
  });

  it('admits exactly the quota across both, calls spread over them, and stores the count', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const shop = await a.createProject({ name: 'shop' });
    await a.service.store.projects.update(shop.project.id, { monthlyQuota: 7 });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => verify(n % 2 === 0 ? a : b, shop)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(13);
    const month = new Date().toISOString().slice(0, 7);
    expect(await a.service.store.usage.get(shop.project.id, month)).toBe(7);
  });
});
