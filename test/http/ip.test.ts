// POST /v1/public/ip: the caller's address (IPv4, IPv6, IPv4-mapped IPv6 as IPv4), proxies
// (X-Forwarded-For only with TRUST_PROXY; test/http/proxy.test.ts for forged entries), and the
// per-client and per-token rate limits.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, post, startService, type TestServer } from '../support/server.js';
import { expectStatusError } from './contract.js';

/** Whether this machine can listen on the IPv6 loopback. */
const hasIpv6Loopback = await new Promise<boolean>((done) => {
  const probe = createServer();
  probe.once('error', () => done(false));
  probe.listen(0, '::1', () => probe.close(() => done(true)));
});

const XFF = { 'x-forwarded-for': '198.51.100.23, 203.0.113.200' };

describe('without a proxy in front (TRUST_PROXY unset)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server.close());

  it('answers the IPv4 client address and a null IPv6 address', async () => {
    const res = await post(server.url, '/v1/public/ip');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });

  it('takes no body and ignores one if sent', async () => {
    const res = await post(server.url, '/v1/public/ip', { anything: true });
    expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });

  it('ignores X-Forwarded-For and X-Real-IP', async () => {
    const res = await post(server.url, '/v1/public/ip', undefined, { ...XFF, 'x-real-ip': '198.51.100.24' });
    expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});

// Runs wherever the machine has an IPv6 loopback (this one does); skipped only where the kernel has none.
describe.skipIf(!hasIpv6Loopback)('over IPv6 (listening on ::)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ host: '::' });
  });
  afterAll(() => server.close());

  it('answers the IPv6 client address and a null IPv4 address', async () => {
    const res = await post(`http://[::1]:${server.port}`, '/v1/public/ip');
    expect(res.body).toEqual({ ipv4_address: null, ipv6_address: '::1' });
  });

  it('reports an IPv4 client arriving as ::ffff:127.0.0.1 as IPv4', async () => {
    const res = await post(`http://127.0.0.1:${server.port}`, '/v1/public/ip');
    expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});

describe.each([
  ['TRUST_PROXY=true (one hop)', 'true', '203.0.113.200', ''],
  ['TRUST_PROXY=1', '1', '203.0.113.200', ''],
  ['TRUST_PROXY=2', '2', '198.51.100.23', ', 10.0.0.1'],
])('behind a proxy (%s)', (_label, trustProxy, expected, innerProxies) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: trustProxy } });
  });
  afterAll(() => server.close());

  it(`answers ${expected} from X-Forwarded-For "198.51.100.23, 203.0.113.200"`, async () => {
    const res = await post(server.url, '/v1/public/ip', undefined, XFF);
    expect(res.body).toEqual({ ipv4_address: expected, ipv6_address: null });
  });

  it('answers an IPv6 forwarded address as IPv6, and a mapped one as IPv4', async () => {
    const v6 = await post(server.url, '/v1/public/ip', undefined, { 'x-forwarded-for': `2001:db8::5${innerProxies}` });
    expect(v6.body).toEqual({ ipv4_address: null, ipv6_address: '2001:db8::5' });
    const mapped = await post(server.url, '/v1/public/ip', undefined, { 'x-forwarded-for': `::ffff:192.0.2.9${innerProxies}` });
    expect(mapped.body).toEqual({ ipv4_address: '192.0.2.9', ipv6_address: null });
  });

  it('falls back to the socket address without X-Forwarded-For', async () => {
    const res = await post(server.url, '/v1/public/ip');
    expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});

describe('rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { RATE_LIMIT_IP: '3', RATE_LIMIT_VERIFY: '3' } });
  });
  afterAll(() => server.close());

  it('RATE_LIMIT_IP=3: the 4th quick request from one client is refused with 429 and Retry-After', async () => {
    const replies = await Promise.all([1, 2, 3, 4].map(() => post(server.url, '/v1/public/ip')));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    const refused = replies.find((r) => r.status === 429);
    expect(refused?.body).toMatchObject({ code: 429, error: expect.stringMatching(/rate limit/), status: false });
    expectStatusError(refused ?? { status: 0, body: null }, 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('RATE_LIMIT_VERIFY=3: per access token, so another token is still served', async () => {
    const a = await server.createProject({ name: 'limited-a' });
    const b = await server.createProject({ name: 'limited-b' });
    const call = (token: string) => post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(token));
    const replies = await Promise.all([1, 2, 3, 4].map(() => call(a.keys.access_token)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    const refused = replies.find((r) => r.status === 429);
    expectStatusError(refused ?? { status: 0, body: null }, 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(b.keys.access_token)).status).toBe(200);
    // A refused call is not recorded.
    const rows = await server.service.store.knex('events').where({ project_id: a.project.id });
    expect(rows).toHaveLength(3);
  });

  it('counts an unauthenticated call against no token (401, not 429)', async () => {
    const replies = await Promise.all([1, 2, 3, 4, 5].map(() => post(server.url, '/v1/public/verify', { email_address: 'x@example.com' })));
    expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
  });
});
