// Failed authentications across a Redis outage (issue 46: "60 guesses in 23 s"): the counts a client ran up
// survive Redis going away (this process's memory counts too, always, and the larger count decides) and Redis
// coming back empty (restarted without persistence): no outage or recovery gives a guesser more tries. After a
// recovery, another instance sees what the first one counted while Redis was away. A redis-server of the test's
// own, killed and started again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { captureLog } from '../support/log-capture.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const LIMIT = 6;
const unknownToken = (n: number) => `etv_at_${String(n).padStart(43, 'C')}`;

describe(`RATE_LIMIT_FAILED_AUTH=${LIMIT}, two services on one Redis that goes away and comes back empty`, () => {
  let redis: RedisServer;
  const servers: TestServer[] = [];
  const logs = [captureLog('info'), captureLog('info')];
  let n = 0;
  const guess = (server: TestServer, client: string) =>
    post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, { ...bearer(unknownToken(++n)), 'x-forwarded-for': client });
  const statuses = async (server: TestServer, client: string, count: number) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await guess(server, client)).status);
    return seen;
  };
  /** The client's count in Redis (the services' default prefix). */
  const inRedis = async (client: string) => Number((await redis.client().get(`email-trust:limit:failed_auth:${client}`)) ?? 0);
  /** Until both services have logged that Redis answers again. */
  const bothBack = () =>
    expect.poll(() => logs.every((l) => l.lines.some((line) => /Redis answers again/.test(String(line.msg)))), { timeout: 10_000, interval: 50 }).toBe(true);

  beforeAll(async () => {
    redis = await startRedisServer();
    for (const captured of logs) {
      const env = { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT), REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '200' };
      servers.push(await startService({ env, compose: { log: captured.log } }));
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await redis?.stop();
  });
  beforeEach(async () => {
    if (
      !(await redis
        .client()
        .ping()
        .catch(() => null))
    )
      await redis.restart();
    for (const captured of logs) captured.clear();
  });

  it('Redis going away: the client goes on from its count, not from zero', async () => {
    const [a] = servers as [TestServer, TestServer];
    expect(await statuses(a, '203.0.113.10', 3)).toEqual([401, 401, 401]);
    await redis.kill();
    expect(await statuses(a, '203.0.113.10', 5)).toEqual([401, 401, 401, 429, 429]);
  });

  it('Redis back empty: neither instance gives the client its tries back', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    expect(await statuses(a, '203.0.113.11', 4)).toEqual([401, 401, 401, 401]);
    await redis.restart(); // empty: the 4 failures are in the services' memory only
    await bothBack();
    await expect.poll(() => inRedis('203.0.113.11'), { timeout: 5_000, interval: 20 }).toBe(4); // raised there by the instance that counted them
    // That instance goes on from 4, and the other one sees the count in Redis.
    expect(await statuses(a, '203.0.113.11', 3)).toEqual([401, 401, 429]);
    expect((await guess(b, '203.0.113.11')).status).toBe(429);
  });

  it('failures counted while Redis was away reach the other instance once it is back', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    await redis.kill();
    expect(await statuses(a, '203.0.113.12', LIMIT + 1)).toEqual([...Array(LIMIT).fill(401), 429]);
    await redis.restart();
    await bothBack();
    await expect.poll(() => inRedis('203.0.113.12'), { timeout: 5_000, interval: 20 }).toBe(LIMIT + 1);
    expect((await guess(b, '203.0.113.12')).status).toBe(429);
    // Another client is not affected.
    expect((await guess(b, '203.0.113.13')).status).toBe(401);
  });
});
