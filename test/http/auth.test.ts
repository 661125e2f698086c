// Who may call what: Bearer access tokens for verify, x-api-key private keys for intelligence and
// public keys for fingerprint. Every refusal is a 401 in the operation's error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

let server: TestServer;
let project: CreatedProject;
const body = { email_address: 'jane@example.com' };

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'auth' });
});
afterAll(() => server.close());

const verify = (headers: Record<string, string>) => post(server.url, '/v1/public/verify', body, headers);

describe('verify (Authorization: Bearer <access token>)', () => {
  it('accepts the access token', async () => {
    const res = await verify(bearer(project.keys.access_token));
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
  });

  it('accepts the scheme name in any case', async () => {
    const res = await verify({ authorization: `bearer ${project.keys.access_token}` });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['Bearer without a token', { authorization: 'Bearer' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a token without the scheme', { authorization: 'TOKEN' }],
    ['two tokens', { authorization: 'Bearer etv_at_a etv_at_b' }],
    ['the token in x-api-key instead', { 'x-api-key': 'TOKEN' }],
  ])('answers 401 for %s', async (_label, headers: Record<string, string>) => {
    const withToken = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('TOKEN', project.keys.access_token)]));
    const res = await verify(withToken);
    expectStatusError(res, 401);
    expect(res.body.error).toMatch(/credentials/);
  });

  it.each([
    ['an unknown token', () => 'etv_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['the private key', () => project.keys.private_key],
    ['the public key', () => project.keys.public_key],
    ['a very long token', () => `etv_at_${'x'.repeat(5000)}`],
  ])('answers 401 for %s as bearer', async (_label, token) => {
    const res = await verify(bearer(token()));
    expectStatusError(res, 401);
    expect(res.body.error).toMatch(/invalid credentials/);
  });

  it('refuses a revoked token at once, even after a successful (cached) lookup', async () => {
    const doomed = await server.createProject({ name: 'auth-revoked' });
    expect((await verify(bearer(doomed.keys.access_token))).status).toBe(200);
    const [key] = (await server.service.store.keys.list(doomed.project.id)).filter((k) => k.kind === 'access_token');
    expect(await server.service.store.keys.revoke(key?.id ?? '')).toBe(true);
    expectStatusError(await verify(bearer(doomed.keys.access_token)), 401);
    // The project's other keys still work.
    const intel = await post(server.url, '/v1/intelligence', body, apiKey(doomed.keys.private_key));
    expect(intel.status).toBe(200);
  });

  it('stores no event for a refused call', async () => {
    const before = await server.service.store.knex('events').count({ n: '*' }).first();
    await verify(bearer(project.keys.private_key));
    await verify({});
    const after = await server.service.store.knex('events').count({ n: '*' }).first();
    expect(Number(after?.n)).toBe(Number(before?.n));
  });
});

describe('intelligence (x-api-key: <private key>)', () => {
  it('accepts the private key', async () => {
    expect((await post(server.url, '/v1/intelligence', body, apiKey(project.keys.private_key))).status).toBe(200);
  });

  it.each([
    ['no key', () => ({})],
    ['an empty key', () => apiKey('')],
    ['an unknown key', () => apiKey('etv_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')],
    ['the public key', () => apiKey(project.keys.public_key)],
    ['the access token', () => apiKey(project.keys.access_token)],
    ['the private key as a Bearer token', () => bearer(project.keys.private_key)],
  ])('answers 401 {error, code} for %s', async (_label, headers) => {
    expectPlainError(await post(server.url, '/v1/intelligence', body, headers()), 401);
  });
});

describe('fingerprint (x-api-key: <public key>)', () => {
  it('accepts the public key', async () => {
    expect((await post(server.url, '/v1/fingerprint', {}, apiKey(project.keys.public_key))).status).toBe(200);
  });

  it.each([
    ['no key', () => ({})],
    ['the private key', () => apiKey(project.keys.private_key)],
    ['the access token', () => apiKey(project.keys.access_token)],
  ])('answers 401 {error, code} for %s', async (_label, headers) => {
    expectPlainError(await post(server.url, '/v1/fingerprint', {}, headers()), 401);
  });
});

describe('ip', () => {
  it('needs no credentials', async () => {
    expect((await post(server.url, '/v1/public/ip')).status).toBe(200);
  });
});
