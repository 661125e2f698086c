// Guessing keys is limited: failed authentications count per client address (RATE_LIMIT_FAILED_AUTH
// per minute, default 20); past the limit the client gets 429 with Retry-After in the operation's error
// shape, while other clients, with valid keys or not yet blocked, are served as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { loadConfig } from '../../src/config.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

const LIMIT = 20;
const body = { email_address: 'jane@example.com' };
const unknownToken = (n: number) => `etv_at_${String(n).padStart(43, 'A')}`;
const from = (client: string) => ({ 'x-forwarded-for': client });

it(`defaults to ${LIMIT} failed authentications per client per minute`, () => {
  expect(loadConfig({}).rateLimits.failedAuth).toBe(LIMIT);
  expect(loadConfig({ RATE_LIMIT_FAILED_AUTH: '0' }).rateLimits.failedAuth).toBe(0);
  expect(() => loadConfig({ RATE_LIMIT_FAILED_AUTH: 'many' })).toThrow(/RATE_LIMIT_FAILED_AUTH/);
});

describe(`RATE_LIMIT_FAILED_AUTH=${LIMIT} behind one trusted proxy`, () => {
  let server: TestServer;
  let project: CreatedProject;
  beforeAll(async () => {
    server = await startService({ env: { TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: String(LIMIT) } });
    project = await server.createProject({ name: 'guessed' });
  });
  afterAll(() => server.close());

  const verify = (headers: Record<string, string>) => post(server.url, '/v1/public/verify', body, headers);

  it('answers 401 to the first 20 bad keys of a client, then 429 with Retry-After; another client with a valid key is served meanwhile', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 25; n++) {
      const res = await verify({ ...bearer(unknownToken(n)), ...from('203.0.113.7') });
      statuses.push(res.status);
      if (res.status === 429) {
        expectStatusError(res, 429);
        expect(res.body.error).toMatch(/failed authentications/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      }
      // Between the guesses, another client's valid key is served.
      if (n % 5 === 4) expect((await verify({ ...bearer(project.keys.access_token), ...from('203.0.113.8') })).status).toBe(200);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(25 - LIMIT).fill(429)]);
    // Blocked, the client is refused whatever it sends, its valid key included (a 401 or 200 would tell a guess apart).
    expect((await verify({ ...bearer(project.keys.access_token), ...from('203.0.113.7') })).status).toBe(429);
    // Other clients' failures count on their own.
    expectStatusError(await verify({ ...bearer(unknownToken(99)), ...from('203.0.113.9') }), 401);
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
    expectPlainError(await post(server.url, '/v1/intelligence', body, { ...apiKey(project.keys.private_key), ...client }), 429);
    expectPlainError(await post(server.url, '/v1/fingerprint', {}, { ...apiKey(project.keys.public_key), ...client }), 429);
    expectStatusError(await verify({ ...bearer(project.keys.access_token), ...client }), 429);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let n = 0; n < LIMIT; n++) expect((await verify({ ...bearer(unknownToken(n)), ...from(`2001:db8:1:2::${n + 1}`) })).status).toBe(401);
    expect((await verify({ ...bearer(unknownToken(0)), ...from('2001:db8:1:2:ffff::1') })).status).toBe(429);
    expect((await verify({ ...bearer(project.keys.access_token), ...from('2001:db8:1:3::1') })).status).toBe(200);
  });

  it('does not count successful authentications', async () => {
    for (let n = 0; n < LIMIT + 5; n++) expect((await verify({ ...bearer(project.keys.access_token), ...from('198.51.100.30') })).status).toBe(200);
  });
});
