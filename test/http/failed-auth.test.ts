// Guessing keys is limited without locking anyone out: failed authentications (a missing, malformed,
// unknown, revoked or wrong-kind key) count per client address (RATE_LIMIT_FAILED_AUTH per minute, default
// 20); past the limit such a request gets 429 with Retry-After in the operation's error shape, while a
// valid key from the same address, its own project's or another tenant's behind the same NAT, is answered
// as before. With the database down, a blocked client's well-formed key that cannot be checked gets 503.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { loadConfig } from '../../src/config.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../src/http/middleware/errors.js';
import { createPostgresSchema } from '../support/databases.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { expectPlainError, expectStatusError } from './contract.js';

const LIMIT = 20;
const body = { email_address: 'jane@example.com' };
const unknownToken = (n: number, kind = 'at') => `etv_${kind}_${String(n).padStart(43, 'A')}`;
const from = (client: string) => ({ 'x-forwarded-for': client });

it(`defaults to ${LIMIT} failed authentications per client per minute`, () => {
  expect(loadConfig({}).rateLimits.failedAuth).toBe(LIMIT);
  expect(loadConfig({ RATE_LIMIT_FAILED_AUTH: '0' }).rateLimits.failedAuth).toBe(0);
  expect(() => loadConfig({ RATE_LIMIT_FAILED_AUTH: 'many' })).toThrow(/RATE_LIMIT_FAILED_AUTH/);
});

describe(`RATE_LIMIT_FAILED_AUTH=${LIMIT} behind one trusted proxy`, () => {
  let server: TestServer;
  let project: CreatedProject;
  let neighbour: CreatedProject;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT) } });
    project = await server.createProject({ name: 'guessed' });
    neighbour = await server.createProject({ name: 'same-nat' });
  });
  afterAll(() => server.close());

  const verify = (headers: Record<string, string>) => post(server.url, '/v1/public/verify', body, headers);
  const expectBlocked = (res: Awaited<ReturnType<typeof verify>>) => {
    expectStatusError(res, 429);
    expect(res.body.error).toMatch(/failed authentications/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  };

  it('answers 401 to the first 20 bad keys of a client, then 429 with Retry-After; another client with a valid key is served meanwhile', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 25; n++) {
      const res = await verify({ ...bearer(unknownToken(n)), ...from('203.0.113.7') });
      statuses.push(res.status);
      if (res.status === 429) expectBlocked(res);
      // Between the guesses, another client's valid key is served.
      if (n % 5 === 4) expect((await verify({ ...bearer(project.keys.access_token), ...from('203.0.113.8') })).status).toBe(200);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(25 - LIMIT).fill(429)]);
    // Other clients' failures count on their own.
    expectStatusError(await verify({ ...bearer(unknownToken(99)), ...from('203.0.113.9') }), 401);
  });

  it('past the limit, still answers every valid key from that address: its own, and another tenant’s behind the same NAT', async () => {
    const nat = from('203.0.113.10');
    for (let n = 0; n < LIMIT; n++) expect((await verify({ ...bearer(unknownToken(n)), ...nat })).status).toBe(401);
    expectBlocked(await verify({ ...bearer(unknownToken(LIMIT)), ...nat }));

    const own = await verify({ ...bearer(project.keys.access_token), ...nat });
    expect(own.status).toBe(200);
    expect(own.body.action).toEqual(expect.any(String));
    expect((await verify({ ...bearer(neighbour.keys.access_token), ...nat })).status).toBe(200);
    expect((await post(server.url, '/v1/intelligence', body, { ...apiKey(neighbour.keys.private_key), ...nat })).status).toBe(200);
    expect((await post(server.url, '/v1/fingerprint', {}, { ...apiKey(neighbour.keys.public_key), ...nat })).status).toBe(200);
    // Valid calls neither count nor lift the block: the next bad key is refused as before.
    expectBlocked(await verify({ ...bearer(unknownToken(LIMIT + 1)), ...nat }));
    expectBlocked(await verify({ ...bearer('etv_at_malformed'), ...nat }));
    expectBlocked(await verify(nat));
  });

  it('counts every kind of failure on every operation, and answers in each operation’s shape', async () => {
    const client = from('198.51.100.20');
    const failures = [
      () => verify(client),
      () => verify({ ...bearer(project.keys.private_key), ...client }),
      () => post(server.url, '/v1/intelligence', body, { ...apiKey(project.keys.access_token), ...client }),
      () => post(server.url, '/v1/fingerprint', {}, { ...apiKey('etv_pk_nope'), ...client }),
    ];
    for (let n = 0; n < LIMIT; n++) expect((await failures[n % failures.length]?.())?.status).toBe(401);
    expectPlainError(await post(server.url, '/v1/intelligence', body, { ...apiKey(unknownToken(1, 'sk')), ...client }), 429);
    expectPlainError(await post(server.url, '/v1/fingerprint', {}, { ...apiKey(project.keys.access_token), ...client }), 429);
    expectStatusError(await verify({ ...bearer(project.keys.public_key), ...client }), 429);
    expect((await post(server.url, '/v1/intelligence', body, { ...apiKey(project.keys.private_key), ...client })).status).toBe(200);
  });

  it('counts a revoked key as a failure', async () => {
    const doomed = await server.createProject({ name: 'revoked-here' });
    const client = from('198.51.100.40');
    expect((await verify({ ...bearer(doomed.keys.access_token), ...client })).status).toBe(200);
    const [key] = (await server.service.store.keys.list(doomed.project.id)).filter((k) => k.kind === 'access_token');
    expect(await server.service.store.keys.revoke(key?.id ?? '')).toBe(true);
    for (let n = 0; n < LIMIT; n++) expectStatusError(await verify({ ...bearer(doomed.keys.access_token), ...client }), 401);
    expectBlocked(await verify({ ...bearer(doomed.keys.access_token), ...client }));
    expect((await verify({ ...bearer(project.keys.access_token), ...client })).status).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let n = 0; n < LIMIT; n++) expect((await verify({ ...bearer(unknownToken(n)), ...from(`2001:db8:1:2::${n + 1}`) })).status).toBe(401);
    expect((await verify({ ...bearer(unknownToken(0)), ...from('2001:db8:1:2:ffff::1') })).status).toBe(429);
    expect((await verify({ ...bearer(project.keys.access_token), ...from('2001:db8:1:2:ffff::1') })).status).toBe(200);
    expect((await verify({ ...bearer(unknownToken(0)), ...from('2001:db8:1:3::1') })).status).toBe(401);
  });

  it('does not count successful authentications', async () => {
    for (let n = 0; n < LIMIT + 5; n++) expect((await verify({ ...bearer(project.keys.access_token), ...from('198.51.100.30') })).status).toBe(200);
    expectStatusError(await verify({ ...bearer(unknownToken(0)), ...from('198.51.100.30') }), 401);
  });
});

describe('a blocked client while PostgreSQL is unreachable (a cut proxy)', () => {
  let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
  let proxy: TcpProxy;
  let server: TestServer;
  let project: CreatedProject;
  let neighbour: CreatedProject;

  beforeAll(async () => {
    schema = await createPostgresSchema();
    const direct = new URL(schema.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    server = await startService({ databaseUrl: viaProxy.toString(), env: { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT) } });
    project = await server.createProject({ name: 'cut-off' });
    neighbour = await server.createProject({ name: 'cut-off-neighbour' });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await schema?.drop();
  });

  const verify = (token: string, client: string) => post(server.url, '/v1/public/verify', body, { ...bearer(token), ...from(client) });

  it('refuses a revoked key it looked up a moment ago without asking the database again', async () => {
    const doomed = await server.createProject({ name: 'cut-off-revoked' });
    const [key] = (await server.service.store.keys.list(doomed.project.id)).filter((k) => k.kind === 'access_token');
    expect(await server.service.store.keys.revoke(key?.id ?? '')).toBe(true);
    expectStatusError(await verify(doomed.keys.access_token, '203.0.113.61'), 401);
    await proxy.cut();
    try {
      expectStatusError(await verify(doomed.keys.access_token, '203.0.113.61'), 401);
    } finally {
      await proxy.restore();
    }
  });

  it('answers 503 with Retry-After to a well-formed key it cannot check, never the limiter’s 429; 200 again once the database is back', async () => {
    const client = '203.0.113.60';
    for (let n = 0; n < LIMIT; n++) expect((await verify(unknownToken(n), client)).status).toBe(401);
    expect((await verify(unknownToken(LIMIT), client)).status).toBe(429);

    await proxy.cut();
    for (const token of [neighbour.keys.access_token, unknownToken(LIMIT + 1)]) {
      const down = await verify(token, client);
      expectStatusError(down, 503);
      expect(down.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    expectPlainError(await post(server.url, '/v1/intelligence', body, { ...apiKey(project.keys.private_key), ...from(client) }), 503);
    // A malformed key needs no lookup, nor one found unknown a moment ago (cached 5 s): both still counted and refused.
    expect((await verify('etv_at_short', client)).status).toBe(429);
    expect((await verify(unknownToken(LIMIT), client)).status).toBe(429);

    await proxy.restore();
    expect((await verify(neighbour.keys.access_token, client)).status).toBe(200);
    expect((await verify(unknownToken(LIMIT + 2), client)).status).toBe(429);
  });
});
