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

describe('a key of another kind, or in the other header', () => {
  const unknownOfKind = (prefix: string) => `${prefix}${'Q'.repeat(43)}`;
  const ACCESS = 'this is an access token: it belongs in "Authorization: Bearer <token>" of POST /v1/public/verify';
  const PRIVATE = 'this is a private key: it belongs in the x-api-key header of POST /v1/intelligence';
  const PUBLIC = 'this is a public key: it belongs in the x-api-key header of POST /v1/fingerprint';
  const cases: [string, string, string, () => Record<string, string>, string][] = [
    ['verify', '/v1/public/verify', 'private key as Bearer', () => bearer(project.keys.private_key), PRIVATE],
    ['verify', '/v1/public/verify', 'public key as Bearer', () => bearer(project.keys.public_key), PUBLIC],
    ['verify', '/v1/public/verify', 'unknown private key as Bearer', () => bearer(unknownOfKind('etv_sk_')), PRIVATE],
    ['intelligence', '/v1/intelligence', 'access token', () => apiKey(project.keys.access_token), ACCESS],
    ['intelligence', '/v1/intelligence', 'public key', () => apiKey(project.keys.public_key), PUBLIC],
    ['intelligence', '/v1/intelligence', 'unknown public key', () => apiKey(unknownOfKind('etv_pk_')), PUBLIC],
    ['fingerprint', '/v1/fingerprint', 'private key', () => apiKey(project.keys.private_key), PRIVATE],
    ['fingerprint', '/v1/fingerprint', 'access token', () => apiKey(project.keys.access_token), ACCESS],
  ];
  it.each(cases)(
    '%s, given the %s… says which kind it is and where it belongs (by its prefix: known or not, the same words)',
    async (_op, path, _label, headers, told) => {
      const res = await post(server.url, path, path === '/v1/fingerprint' ? {} : body, headers());
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/^invalid credentials: /);
      expect(res.body.error).toContain(told);
    },
  );

  it('says what the operation needs, and that a key without our prefix is none of ours', async () => {
    expect((await verify(bearer(project.keys.private_key))).body.error).toBe(
      `invalid credentials: ${PRIVATE}; this operation needs an access token in "Authorization: Bearer <token>"`,
    );
    expect((await verify(bearer('sk_live_abc'))).body.error).toBe(
      'invalid credentials: this is not a key this service issues; this operation needs an access token in "Authorization: Bearer <token>"',
    );
  });

  it('names the header a key was sent in when the right one is empty', async () => {
    const intel = await post(server.url, '/v1/intelligence', body, bearer(project.keys.private_key));
    expectPlainError(intel, 401);
    expect(intel.body.error).toBe(
      'missing credentials: this operation needs a private key in the x-api-key header; the one sent is in the Authorization header',
    );
    const inApiKey = await verify(apiKey(project.keys.access_token));
    expect(inApiKey.body.error).toBe(
      'missing credentials: this operation needs an access token in "Authorization: Bearer <token>"; the one sent is in the x-api-key header',
    );
    const other = await post(server.url, '/v1/fingerprint', {}, bearer(project.keys.private_key));
    expect(other.body.error).toBe(
      `missing credentials: this operation needs a public key in the x-api-key header; the Authorization header carries a key: ${PRIVATE}`,
    );
  });

  it('never quotes the key it was sent', async () => {
    for (const token of [project.keys.private_key, project.keys.public_key]) expect((await verify(bearer(token))).text).not.toContain(token.slice(7));
  });
});

describe('ip', () => {
  it('needs no credentials', async () => {
    expect((await post(server.url, '/v1/public/ip')).status).toBe(200);
  });
});
