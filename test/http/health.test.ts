// GET /healthz answers 200 while the process runs; GET /readyz answers 200 when every readiness probe
// passes and 503 naming the failing part otherwise: the database really unreachable (a cut proxy in front
// of the machine's PostgreSQL) or not answering within the bounded wait (a server that accepts and says
// nothing), a probe added by another module (as Redis's is), and a stopping instance. No key is needed.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_TIMEOUT_MS, ProbeFailure } from '../../src/service/readiness.js';
import { TEST_POSTGRES_URL } from '../support/databases.js';
import { send, startService, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const get = (server: TestServer, path: string) => send('GET', server.url, path);

describe('on SQLite, everything up', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server?.close());

  it('answers /healthz 200 without a key', async () => {
    const res = await get(server, '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers /readyz 200 with each probe passed', async () => {
    const res = await get(server, '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', checks: { database: { ok: true }, policies: { ok: true } } });
    // The active revision of each policy: every shipped one, none stored by a project yet; the network checks (off in tests).
    expect(Object.keys(res.body)).toEqual(['status', 'checks', 'policies', 'network']);
    expect(res.body.network).toEqual({ checks: 'off' });
    expect(res.body.policies.named.default).toEqual({ revision: expect.stringMatching(/^[0-9a-f]{16}$/), from: 'shipped' });
    expect(res.body.policies.projects).toEqual({});
  });

  it('answers HEAD on both, and refuses POST with 405', async () => {
    expect((await send('HEAD', server.url, '/healthz')).status).toBe(200);
    expect((await send('HEAD', server.url, '/readyz')).status).toBe(200);
    expect((await send('POST', server.url, '/readyz', {})).status).toBe(405);
  });

  it('answers 503 naming a probe another module added once it fails, and 200 once it passes again', async () => {
    let redisUp = false;
    server.service.readiness.add('redis', () => {
      if (!redisUp) throw new ProbeFailure('Redis did not answer PING');
    });
    const down = await get(server, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      status: 'unavailable',
      failing: ['redis'],
      checks: { database: { ok: true }, policies: { ok: true }, redis: { ok: false, reason: 'Redis did not answer PING' } },
    });
    expect(down.body.error).toBe('not ready: redis (Redis did not answer PING)');
    expect(down.body.id).toBe(down.headers.get('x-request-id'));
    // A probe that throws anything else is named by the error's name and code only (no message: it may quote SQL).
    server.service.readiness.add('redis', () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379 secret'), { code: 'ECONNREFUSED' });
    });
    const refused = await get(server, '/readyz');
    expect(refused.body.checks.redis).toEqual({ ok: false, reason: 'failed: Error ECONNREFUSED' });
    expect(refused.text).not.toContain('secret');
    redisUp = true;
    server.service.readiness.add('redis', () => undefined);
    expect((await get(server, '/readyz')).status).toBe(200);
  });

  it('stays 200 when an optional probe fails, naming it in `degraded`', async () => {
    server.service.readiness.add(
      'redis',
      () => {
        throw new ProbeFailure('Redis did not answer PING');
      },
      { required: false },
    );
    const degraded = await get(server, '/readyz');
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ status: 'ready', degraded: ['redis'], checks: { redis: { ok: false, reason: 'Redis did not answer PING' } } });
    server.service.readiness.add('redis', () => undefined, { required: false });
    const passed = await get(server, '/readyz');
    expect(passed.body.degraded).toBeUndefined();
    expect(passed.body.checks.redis).toEqual({ ok: true });
  });
});

describe('with network checks on', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  const start = async (env: Record<string, string>) => {
    const server = await startService({ env: { NETWORK_CHECKS: 'on', ...env } });
    servers.push(server);
    return server;
  };

  it('names the DNS servers DNS_SERVERS gives, in both /readyz answers', async () => {
    const server = await start({ DNS_SERVERS: '127.0.0.1:5399, [::1]:5399' });
    const expected = { checks: 'on', resolvers: ['127.0.0.1:5399', '[::1]:5399'], resolvers_from: 'DNS_SERVERS' };
    expect((await get(server, '/readyz')).body.network).toEqual(expected);
    server.service.readiness.add('redis', () => {
      throw new ProbeFailure('Redis did not answer PING');
    });
    const down = await get(server, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.network).toEqual(expected);
  });

  it("without DNS_SERVERS, names the system's resolvers (/etc/resolv.conf, as node reads it)", async () => {
    const server = await start({});
    expect((await get(server, '/readyz')).body.network).toEqual({ checks: 'on', resolvers: new Resolver().getServers(), resolvers_from: 'system' });
  });
});

describe('on PostgreSQL that goes away', () => {
  const schema = `t_${randomBytes(8).toString('hex')}`;
  let admin: Knex;
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    admin = knexFactory({ client: 'pg', connection: TEST_POSTGRES_URL });
    await admin.raw('create schema ??', [schema]);
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_POSTGRES_URL);
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('options', `-c search_path=${schema}`);
    server = await startService({ databaseUrl: viaProxy.toString() });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await admin?.raw('drop schema if exists ?? cascade', [schema]);
    await admin?.destroy();
  });

  it('answers /readyz 503 naming the database while it is cut, /healthz 200 all along, and ready again once it is back', async () => {
    expect((await get(server, '/readyz')).status).toBe(200);
    await proxy.cut();
    const down = await get(server, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['database']);
    expect(down.body.checks.database.ok).toBe(false);
    expect(down.body.checks.database.reason).toMatch(/^failed: |^timed out/);
    expect(down.body.checks.policies).toEqual({ ok: true });
    expect(down.text).not.toMatch(/select|knex|postgres:\/\//i);
    expect((await get(server, '/healthz')).status).toBe(200);
    await proxy.restore();
    expect((await get(server, '/readyz')).status).toBe(200);
  });
});

describe('on PostgreSQL that accepts connections and never answers', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let server: TestServer;

  beforeAll(async () => {
    // The service starts on the real database; the probe is then pointed at a second connection pool
    // whose server says nothing, as a hung database would.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    server = await startService({ database: 'postgres' });
  });
  afterAll(async () => {
    await server?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((done) => silent.close(done));
  });

  it('gives up on the database after the bounded wait and answers 503 naming it', async () => {
    const port = (silent.address() as { port: number }).port;
    const hung = knexFactory({
      client: 'pg',
      connection: `postgres://postgres@127.0.0.1:${port}/test`,
      acquireConnectionTimeout: 60_000,
      pool: { min: 0, max: 1 },
    });
    try {
      server.service.readiness.add('database', () => hung.raw('select 1'));
      const res = await get(server, '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.failing).toEqual(['database']);
      expect(res.body.checks.database).toEqual({ ok: false, reason: `timed out after ${PROBE_TIMEOUT_MS} ms` });
    } finally {
      for (const socket of sockets) socket.destroy();
      await hung.destroy().catch(() => undefined);
    }
  });
});

describe('while stopping', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server?.close());

  it('answers /readyz 503 naming the shutdown, /healthz still 200', async () => {
    server.service.readiness.markStopping();
    const res = await get(server, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.failing).toEqual(['shutdown']);
    expect(res.body.checks).toMatchObject({ database: { ok: true }, shutdown: { ok: false, reason: 'the instance is shutting down' } });
    expect((await get(server, '/healthz')).status).toBe(200);
  });
});
