// The database is the quota's source of truth, Redis its fast path (issue 46, points 3 and 6):
// - two services on one PostgreSQL and one redis-server of the test's own, quota 30: Redis killed and started
//   again empty mid-run, or flushed, and the two together still admit 30 in the month, not 30 more; the usage
//   table agrees with the stored events;
// - only served calls count: calls answered 503 while the database is cut (their events not committed) are not
//   counted, with Redis (their reservations given back) and without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { monthOf } from '../../src/store/usage.js';
import { createPostgresSchema } from '../support/databases.js';
import { captureLog } from '../support/log-capture.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const QUOTA = 30;
let n = 0;
const verify = (server: TestServer, project: CreatedProject) =>
  post(server.url, '/v1/public/verify', { email_address: `user${++n}@example.com` }, bearer(project.keys.access_token));

/** The project's usage this month, and its stored events. */
async function stored(server: TestServer, project: CreatedProject): Promise<{ usage: number; events: number }> {
  const { store } = server.service;
  const [row] = await store.knex('events').where({ project_id: project.project.id }).count({ n: '*' });
  return { usage: await store.usage.get(project.project.id, monthOf(Date.now())), events: Number(row?.n) };
}

describe(`a quota of ${QUOTA} across two services on one PostgreSQL and one Redis that restarts empty`, () => {
  let redis: RedisServer;
  const servers: TestServer[] = [];
  const logs = [captureLog('info'), captureLog('info')];
  /** `count` calls at once, alternating between the services: how many were admitted (200), the rest must be 429. */
  const wave = async (project: CreatedProject, count: number) => {
    const statuses = (await Promise.all(Array.from({ length: count }, (_, i) => verify(servers[i % 2] as TestServer, project)))).map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    return statuses.filter((s) => s === 200).length;
  };
  /** `count` calls one after the other, alternating. */
  const oneByOne = async (project: CreatedProject, count: number) => {
    let admitted = 0;
    for (let i = 0; i < count; i++) {
      const { status } = await verify(servers[i % 2] as TestServer, project);
      expect([200, 429]).toContain(status);
      if (status === 200) admitted += 1;
    }
    return admitted;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '200' };
    servers.push(await startService({ database: 'postgres', env, compose: { log: logs[0]?.log } }));
    servers.push(await startService({ databaseUrl: servers[0]?.service.config.databaseUrl, env, compose: { log: logs[1]?.log } }));
  });
  afterAll(async () => {
    await servers[1]?.close();
    await servers[0]?.close();
    await redis?.stop();
  });

  it('killed and started again mid-run: 30 admitted in all, and the usage table agrees with the events', async () => {
    const [a] = servers as [TestServer, TestServer];
    const shop = await a.createProject({ name: 'shop' });
    await a.service.store.projects.update(shop.project.id, { monthlyQuota: QUOTA });

    let admitted = await wave(shop, 12);
    expect(admitted).toBe(12);
    await redis.kill();
    // Decided by each service alone, from the database's count: below the quota, all are admitted.
    admitted += await wave(shop, 8);
    expect(admitted).toBe(20);
    for (const l of logs) l.clear();
    await redis.restart(); // empty
    await expect.poll(() => logs.every((l) => l.lines.some((line) => /Redis answers again/.test(String(line.msg)))), { timeout: 10_000 }).toBe(true);
    // Redis's count is set again from the database (20), not started from 0.
    admitted += await oneByOne(shop, 40);
    expect(admitted).toBe(QUOTA);
    expect(await stored(a, shop)).toEqual({ usage: QUOTA, events: QUOTA });
  });

  it('flushed mid-run: the count is seeded from the database again, also for calls arriving at once', async () => {
    const [a] = servers as [TestServer, TestServer];
    const mall = await a.createProject({ name: 'mall' });
    await a.service.store.projects.update(mall.project.id, { monthlyQuota: QUOTA });

    let admitted = await wave(mall, 18);
    expect(admitted).toBe(18);
    await redis.client().flushall();
    admitted += await wave(mall, 30);
    expect(admitted).toBe(QUOTA);
    expect(await stored(a, mall)).toEqual({ usage: QUOTA, events: QUOTA });
  });
});

describe.each([
  { where: 'with Redis (the reservations given back)', redis: true },
  { where: 'without Redis', redis: false },
])('only served calls count, $where: calls answered 503 while PostgreSQL is cut', ({ redis: withRedis }) => {
  let redis: RedisServer | null = null;
  let proxy: TcpProxy;
  let schema: { url: string; drop(): Promise<void> };
  let server: TestServer;
  let project: CreatedProject;

  beforeAll(async () => {
    schema = await createPostgresSchema();
    const target = new URL(schema.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    redis = withRedis ? await startRedisServer() : null;
    server = await startService({ databaseUrl: viaProxy.toString(), env: redis ? { REDIS_URL: redis.url } : {} });
    project = await server.createProject({ name: 'outage' });
    await server.service.store.projects.update(project.project.id, { monthlyQuota: 12 });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await schema?.drop();
    await redis?.stop();
  });

  it('10 served, 20 refused with 503, then the 2 left of a quota of 12 are admitted: 12 counted', async () => {
    for (let i = 0; i < 10; i++) expect((await verify(server, project)).status).toBe(200);
    await proxy.cut();
    for (let i = 0; i < 20; i++) expect((await verify(server, project)).status).toBe(503);
    await proxy.restore();
    const after: number[] = [];
    for (let i = 0; i < 5; i++) after.push((await verify(server, project)).status);
    expect(after).toEqual([200, 200, 429, 429, 429]);
    expect(await stored(server, project)).toEqual({ usage: 12, events: 12 });
    if (redis) expect(Number(await redis.client().get(`email-trust:quota:${project.project.id}:${monthOf(Date.now())}`))).toBe(12);
  });
});
