// Behind proxies, a client can write anything to the left of X-Forwarded-For. Only the entries the
// trusted proxies appended count: a forged leftmost entry changes neither /v1/public/ip, nor the
// per-client rate limit, nor the fingerprint's address, nor the events stored with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, post, startService, type TestServer } from '../support/server.js';

const ip = (server: TestServer, xff?: string) => post(server.url, '/v1/public/ip', undefined, xff === undefined ? {} : { 'x-forwarded-for': xff });

/** The IPv4 address stored with an intelligence call made with a fingerprint issued for `xff`. */
async function storedFingerprintIp(server: TestServer, project: CreatedProject, email: string, xff: string): Promise<unknown> {
  const issued = await post(server.url, '/v1/fingerprint', {}, { ...apiKey(project.keys.public_key), 'x-forwarded-for': xff });
  expect(issued.status).toBe(200);
  const res = await post(server.url, '/v1/intelligence', { email_address: email, fingerprint: issued.body.fingerprint }, apiKey(project.keys.private_key));
  expect(res.status).toBe(200);
  const rows = await server.service.store.knex('events').where({ project_id: project.project.id, email });
  expect(rows).toHaveLength(1);
  return rows[0].ipv4;
}

describe('TRUST_PROXY=1 (one proxy appends the client to X-Forwarded-For)', () => {
  let server: TestServer;
  let project: CreatedProject;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '1' } });
    project = await server.createProject({ name: 'proxied' });
  });
  afterAll(() => server.close());

  it('/v1/public/ip answers the entry the proxy appended, not the forged leftmost one', async () => {
    const res = await ip(server, '6.6.6.6, 203.0.113.9');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ipv4_address: '203.0.113.9', ipv6_address: null });
  });

  it('seals the appended address into the fingerprint, and the event stored with it carries that address', async () => {
    expect(await storedFingerprintIp(server, project, 'forged@example.com', '6.6.6.6, 203.0.113.77')).toBe('203.0.113.77');
  });

  it.each([
    ['nothing but garbage', 'unknown'],
    ['garbage where the proxy appends', '203.0.113.77, not-an-ip'],
    ['an empty entry', '203.0.113.77, '],
  ])('falls back to the socket address for %s', async (_label, xff) => {
    expect((await ip(server, xff)).body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
    expect(await storedFingerprintIp(server, project, `garbage-${xff.length}@example.com`, xff)).toBe('127.0.0.1');
  });
});

describe('TRUST_PROXY=1 with RATE_LIMIT_IP=2', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '1', RATE_LIMIT_IP: '2' } });
  });
  afterAll(() => server.close());

  it('counts the rate limit per real client: forged leftmost entries share one bucket, another client has its own', async () => {
    const replies = await Promise.all([1, 2, 3].map((n) => ip(server, `198.18.0.${n}, 203.0.113.50`)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect((await ip(server, '198.18.0.1, 203.0.113.51')).status).toBe(200);
  });
});

describe('TRUST_PROXY=2', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '2' } });
  });
  afterAll(() => server.close());

  it('takes the second entry from the right', async () => {
    expect((await ip(server, '6.6.6.6, 198.51.100.4, 10.0.0.1')).body).toEqual({ ipv4_address: '198.51.100.4', ipv6_address: null });
  });

  it('answers the socket address when there are fewer entries than hops', async () => {
    expect((await ip(server, '198.51.100.4')).body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
    expect((await ip(server)).body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});

describe('TRUST_PROXY as trusted proxy ranges (10.0.0.0/8,127.0.0.1/32)', () => {
  let server: TestServer;
  let project: CreatedProject;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '10.0.0.0/8,127.0.0.1/32' } });
    project = await server.createProject({ name: 'ranged' });
  });
  afterAll(() => server.close());

  it('walks past the trusted proxies from the right and stops at the first untrusted address', async () => {
    expect((await ip(server, '6.6.6.6, 203.0.113.9, 10.1.1.1, 10.2.2.2')).body).toEqual({ ipv4_address: '203.0.113.9', ipv6_address: null });
    expect(await storedFingerprintIp(server, project, 'ranged@example.com', '6.6.6.6, 203.0.113.10, 10.1.1.1')).toBe('203.0.113.10');
  });

  it('answers the socket address when garbage is reached before an untrusted address', async () => {
    expect((await ip(server, '203.0.113.9, bogus, 10.1.1.1')).body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});

describe('TRUST_PROXY as ranges the peer is outside of (192.0.2.0/24)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '192.0.2.0/24' } });
  });
  afterAll(() => server.close());

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    expect((await ip(server, '6.6.6.6, 203.0.113.9')).body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  });
});
