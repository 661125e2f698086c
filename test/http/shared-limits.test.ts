// REDIS_URL: every rate limit lives in Redis, so two services on one Redis admit what one would; when
// Redis cannot answer, each service falls back to memory, keeps answering (no 5xx), logs one warning per
// outage and counts every fallback decision. The failed-authentication limit (a one-minute window) is the
// one counted here, so no assertion depends on how fast the calls go.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { captureLog } from '../support/log-capture.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { expectStatusError } from './contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 4;
const unknownToken = (n: number) => `etv_at_${String(n).padStart(43, 'B')}`;
const guess = (server: TestServer, n: number, client: string) =>
  post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, { ...bearer(unknownToken(n)), 'x-forwarded-for': client });
/** A key prefix of its own: tests running at once never share counters. */
const prefix = () => `email-trust-test:${randomUUID()}:`;

it('reads REDIS_URL, REDIS_PREFIX and REDIS_TIMEOUT_MS', () => {
  expect(loadConfig({}).redis).toBeNull();
  expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'email-trust:', timeoutMs: 250 });
  expect(loadConfig({ REDIS_URL: 'redis://r:6379/2', REDIS_PREFIX: 'x:', REDIS_TIMEOUT_MS: '100' }).redis).toEqual({
    url: 'redis://r:6379/2',
    prefix: 'x:',
    timeoutMs: 100,
  });
  expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL/);
  expect(() => loadConfig({ REDIS_URL: 'redis://x', REDIS_TIMEOUT_MS: '1' })).toThrow(/REDIS_TIMEOUT_MS/);
});

describe('two services on one Redis', () => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const env = { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT), REDIS_URL, REDIS_PREFIX: prefix() };
    servers.push(await startService({ env }), await startService({ env }));
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('admit together what one would: the failures of one client alternate between them and are refused past the limit', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < LIMIT + 3; n++) statuses.push((await guess(servers[n % 2] as TestServer, n, '203.0.113.50')).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429, 429, 429]);
    // Blocked on both, whichever it asks; another client is not.
    for (const server of servers) expectStatusError(await guess(server, 99, '203.0.113.50'), 429);
    expect((await guess(servers[1] as TestServer, 100, '203.0.113.51')).status).toBe(401);
    expect(servers.map((s) => s.service.limits.counters().fallbacks)).toEqual([0, 0]);
    expect(servers.map((s) => s.service.limits.counters().rateLimited.failed_auth).reduce((a, b) => a + b)).toBe(5);
  });
});

describe('Redis unreachable', () => {
  let server: TestServer;
  let proxy: TcpProxy;
  const captured = captureLog('info');
  afterEach(async () => {
    await server?.close();
    await proxy?.close();
  });

  it('at start (a port nothing listens on): the service starts and answers, limits in memory, one warning', async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    await proxy.cut();
    captured.clear();
    server = await startService({
      env: { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT), REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_PREFIX: prefix() },
      compose: { log: captured.log },
    });
    const statuses: number[] = [];
    for (let n = 0; n < LIMIT + 2; n++) statuses.push((await guess(server, n, '198.51.100.60')).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429, 429]);
    const warnings = captured.above('info').filter((line) => /Redis does not answer/.test(String(line.msg)));
    expect(warnings).toHaveLength(1);
    // Every decision (one per failed call) was taken in memory and counted.
    expect(server.service.limits.counters().fallbacks).toBeGreaterThanOrEqual(LIMIT + 2);
  });

  it('cut while serving: answers go on without a 5xx, one warning for the outage, shared again once Redis is back', async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 6379 });
    captured.clear();
    server = await startService({
      env: { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: '1000', REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_PREFIX: prefix() },
      compose: { log: captured.log },
    });
    expect((await guess(server, 0, '198.51.100.61')).status).toBe(401);
    expect(server.service.limits.counters().fallbacks).toBe(0);

    await proxy.cut();
    const during: number[] = [];
    for (let n = 1; n <= 20; n++) during.push((await guess(server, n, '198.51.100.61')).status);
    expect(new Set(during)).toEqual(new Set([401]));
    const fallbacks = server.service.limits.counters().fallbacks;
    expect(fallbacks).toBeGreaterThanOrEqual(20);
    expect(captured.above('info').filter((line) => /does not answer/.test(String(line.msg)))).toHaveLength(1);

    await proxy.restore();
    await expect.poll(() => captured.lines.some((line) => /Redis answers again/.test(String(line.msg))), { timeout: 10_000, interval: 100 }).toBe(true);
    expect((await guess(server, 21, '198.51.100.61')).status).toBe(401);
    expect(server.service.limits.counters().fallbacks).toBe(fallbacks);
  });
});
