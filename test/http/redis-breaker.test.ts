// The circuit breaker on Redis (issue 46, point 2): with REDIS_URL set and Redis frozen (SIGSTOP: it holds its
// connections and answers nothing) or killed, the service keeps answering from memory without sending Redis
// anything after the first failure, and goes back to Redis by itself once Redis answers again. "Nothing sent"
// is read from Redis's own INFO commandstats once it runs again (what was written to a frozen Redis's sockets is
// executed when it wakes), never from timing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { captureLog } from '../support/log-capture.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const CALLS = 30;
/**
 * The commands a request's limit and quota send, as Redis counts them (commandstats also counts the commands a
 * script or a transaction runs inside, under their own names): scripts and transactions. A probe's PING is not one.
 */
const REQUEST_COMMANDS = ['evalsha', 'eval', 'multi'];

/** Scripts and transactions Redis ran for the limits and the quota since the last resetStats(). */
async function requestCommands(redis: RedisServer): Promise<number> {
  const stats = await redis.stats();
  return REQUEST_COMMANDS.reduce((sum, name) => sum + (stats[name] ?? 0), 0);
}

describe('Redis frozen, killed, and back', () => {
  let redis: RedisServer;
  let server: TestServer;
  let project: CreatedProject;
  const captured = captureLog('info');
  const verify = (n: number) => post(server.url, '/v1/public/verify', { email_address: `user${n}@example.com` }, bearer(project.keys.access_token));
  const answersAgain = () => captured.lines.filter((line) => /Redis answers again/.test(String(line.msg))).length;

  beforeAll(async () => {
    redis = await startRedisServer();
    server = await startService({
      // A limit and a quota that are never reached: every call asks Redis for both while it answers.
      env: { REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '200', RATE_LIMIT_VERIFY: '1000' },
      compose: { log: captured.log },
    });
    project = await server.createProject({ name: 'breaker' });
    await server.service.store.projects.update(project.project.id, { monthlyQuota: 1_000_000 });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    expect((await verify(0)).status).toBe(200);
    captured.clear();
    await redis.resetStats();
  });
  afterEach(() => redis.thaw());

  it('frozen: every call is answered, Redis is sent nothing after the first failure, and the breaker closes after SIGCONT', async () => {
    expect((await verify(1)).status).toBe(200);
    expect(await requestCommands(redis)).toBeGreaterThanOrEqual(2); // the rate limit's and the quota's
    await redis.resetStats();
    const before = server.service.limits.counters().fallbacks;

    redis.freeze();
    // The first call waits out REDIS_TIMEOUT_MS once; from then on the breaker is open.
    expect((await verify(2)).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: CALLS }, (_, n) => verify(100 + n)));
    expect(statuses.map((r) => r.status)).toEqual(Array(CALLS).fill(200));
    // Each call's rate limit and quota decided in memory, and counted.
    expect(server.service.limits.counters().fallbacks - before).toBeGreaterThanOrEqual(2 * CALLS);
    expect(captured.above('info').filter((line) => /Redis does not answer/.test(String(line.msg)))).toHaveLength(1);

    redis.thaw();
    await expect.poll(answersAgain, { timeout: 10_000, interval: 50 }).toBe(1);
    // What reached Redis while it was frozen: the first call's two commands at most, none of the CALLS calls'.
    expect(await requestCommands(redis)).toBeLessThanOrEqual(2);

    // Closed: the next call is decided in Redis again.
    await redis.resetStats();
    const fallbacks = server.service.limits.counters().fallbacks;
    expect((await verify(3)).status).toBe(200);
    expect(await requestCommands(redis)).toBeGreaterThanOrEqual(2);
    expect(server.service.limits.counters().fallbacks).toBe(fallbacks);
  });

  it('killed: every call is answered from memory; started again (empty), the breaker closes by itself', async () => {
    await redis.kill();
    const statuses = await Promise.all(Array.from({ length: CALLS }, (_, n) => verify(200 + n)));
    expect(statuses.map((r) => r.status)).toEqual(Array(CALLS).fill(200));
    expect(captured.above('info').filter((line) => /Redis does not answer/.test(String(line.msg)))).toHaveLength(1);
    // Still ready: the instance serves without Redis, so a load balancer must not take it (and every other) out.
    const ready = await fetch(`${server.url}/readyz`);
    const report = (await ready.json()) as { status: string; degraded?: string[]; checks: Record<string, { ok: boolean }> };
    expect(ready.status).toBe(200);
    expect(report).toMatchObject({ status: 'ready', degraded: ['redis'], checks: { database: { ok: true }, redis: { ok: false } } });

    await redis.restart();
    await expect.poll(answersAgain, { timeout: 10_000, interval: 50 }).toBe(1);
    const back = (await (await fetch(`${server.url}/readyz`)).json()) as { degraded?: string[]; checks: Record<string, { ok: boolean }> };
    expect(back.degraded).toBeUndefined();
    expect(back.checks.redis).toEqual({ ok: true });
    await redis.resetStats();
    const fallbacks = server.service.limits.counters().fallbacks;
    expect((await verify(4)).status).toBe(200);
    expect(await requestCommands(redis)).toBeGreaterThanOrEqual(2);
    expect(server.service.limits.counters().fallbacks).toBe(fallbacks);
  });
});
