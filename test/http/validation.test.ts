// Refused requests: bad bodies (400 naming the field), oversized bodies (413), unknown routes (404),
// wrong methods (405). No error body ever shows a stack frame or a source path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { BODY_LIMIT_BYTES } from '../../src/http/middleware/json-body.js';
import { apiKey, bearer, post, send, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

let server: TestServer;
let project: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'validation' });
});
afterAll(() => server.close());

const verify = (body: unknown, headers: Record<string, string> = {}) =>
  post(server.url, '/v1/public/verify', body, { ...bearer(project.keys.access_token), ...headers });

describe('verify body', () => {
  it.each([
    ['missing email_address', { show_results: true }, 'email_address'],
    ['email_address a number', { email_address: 42 }, 'email_address'],
    ['email_address null', { email_address: null }, 'email_address'],
    ['email_address empty', { email_address: '' }, 'email_address'],
    ['email_address over 1024 characters', { email_address: `${'a'.repeat(1020)}@example.com` }, 'email_address'],
    ['an unknown field', { email_address: 'a@example.com', emial: 'x' }, 'emial'],
    ['ipv4_address not an IPv4 address', { email_address: 'a@example.com', ipv4_address: '256.1.1.1' }, 'ipv4_address'],
    ['ipv4_address an IPv6 address', { email_address: 'a@example.com', ipv4_address: '::1' }, 'ipv4_address'],
    ['ipv6_address not an IPv6 address', { email_address: 'a@example.com', ipv6_address: '2001:db8::zz' }, 'ipv6_address'],
    ['soft_check not a boolean', { email_address: 'a@example.com', soft_check: 'yes' }, 'soft_check'],
    ['show_results not a boolean', { email_address: 'a@example.com', show_results: 1 }, 'show_results'],
    ['show_steps not a boolean', { email_address: 'a@example.com', show_steps: 'true' }, 'show_steps'],
  ])('answers 400 naming the field for %s', async (_label, body, field) => {
    const res = await verify(body);
    expectStatusError(res, 400);
    expect(res.body.error).toContain(field);
  });

  it.each([
    ['an array', '[]'],
    ['a JSON string', '"x"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('answers 400 "must be a JSON object" for a body that is %s', async (_label, raw) => {
    const res = await verify(raw);
    expectStatusError(res, 400);
    expect(res.body.error).toMatch(/body must be a JSON object/);
  });

  it.each([
    ['malformed JSON', '{"email_address": '],
    ['a trailing comma', '{"email_address": "a@example.com",}'],
    ['single quotes', "{'email_address': 'a@example.com'}"],
  ])('answers 400 for %s, saying the body is not valid JSON', async (_label, raw) => {
    const res = await verify(raw);
    expectStatusError(res, 400);
    expect(res.body.error).toMatch(/body is not valid JSON/);
  });

  it('answers 400 naming email_address for an empty body', async () => {
    const res = await verify(undefined);
    expectStatusError(res, 400);
    expect(res.body.error).toContain('email_address');
  });

  it('reads a JSON body whatever the Content-Type says', async () => {
    const res = await verify(JSON.stringify({ email_address: 'a@example.com' }), { 'content-type': 'text/plain' });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
  });

  it('does not let __proto__ through', async () => {
    const res = await verify('{"email_address": "a@example.com", "__proto__": {"show_results": true}}');
    expect(res.status).toBe(400);
    expect(res.body).not.toHaveProperty('analyzed_data');
  });

  it(`answers 413 for a body over ${BODY_LIMIT_BYTES} bytes, and accepts one just under it`, async () => {
    const big = await verify({ email_address: 'a@example.com', padding: 'x'.repeat(BODY_LIMIT_BYTES) });
    expectStatusError(big, 413);
    const filler = BODY_LIMIT_BYTES - JSON.stringify({ email_address: 'a@example.com', ipv4_address: '' }).length - 10;
    // Within the limit the body is parsed (and then refused for its unknown content, not its size).
    const near = await verify(`{"email_address":"a@example.com",${' '.repeat(filler)}"ipv4_address":"x"}`);
    expectStatusError(near, 400);
    expect(near.body.error).toContain('ipv4_address');
  });
});

describe('intelligence and fingerprint bodies', () => {
  it.each([
    ['missing email_address', {}, 'email_address'],
    ['an unknown field', { email_address: 'a@example.com', show_results: true }, 'show_results'],
    ['fingerprint not a string', { email_address: 'a@example.com', fingerprint: 7 }, 'fingerprint'],
    ['custom_policy not an object', { email_address: 'a@example.com', custom_policy: 'strict' }, 'custom_policy'],
  ])('intelligence answers 400 {error, code} naming the field for %s', async (_label, body, field) => {
    const res = await post(server.url, '/v1/intelligence', body, apiKey(project.keys.private_key));
    expectPlainError(res, 400);
    expect(res.body.error).toContain(field);
  });

  it('intelligence answers 400 {error, code} for malformed JSON and 413 for an oversized body', async () => {
    expectPlainError(await post(server.url, '/v1/intelligence', '{', apiKey(project.keys.private_key)), 400);
    const big = { email_address: 'a@example.com', fingerprint: 'x'.repeat(BODY_LIMIT_BYTES + 1) };
    expectPlainError(await post(server.url, '/v1/intelligence', big, apiKey(project.keys.private_key)), 413);
  });

  it('fingerprint answers 400 {error, code} naming a field it was sent', async () => {
    const res = await post(server.url, '/v1/fingerprint', { user_agent: 'x' }, apiKey(project.keys.public_key));
    expectPlainError(res, 400);
    expect(res.body.error).toContain('user_agent');
  });
});

describe('addresses that can never be stored (verify and intelligence)', () => {
  const endpoints = [
    { name: 'verify', call: (body: unknown) => verify(body), expectError: expectStatusError },
    {
      name: 'intelligence',
      call: (body: unknown) => post(server.url, '/v1/intelligence', body, apiKey(project.keys.private_key)),
      expectError: expectPlainError,
    },
  ];
  describe.each(endpoints)('$name', ({ name, call, expectError }) => {
    const stored = async (email: string) => Number((await server.service.store.knex('events').where({ email, endpoint: name }).count({ n: '*' }))[0]?.n);

    it.each([
      ['U+0000', 'a\u0000b@example.com', 'U+0000 at character 2'],
      ['a line feed', 'a@example.com\nX-Injected: 1', 'U+000A at character 14'],
      ['a tab', '\ta@example.com', 'U+0009 at character 1'],
      ['U+001F', 'a\u001f@example.com', 'U+001F at character 2'],
      ['DEL (U+007F)', 'a\u007f@example.com', 'U+007F at character 2'],
      ['NEL (U+0085)', 'a@exa\u0085mple.com', 'U+0085 at character 6'],
      ['U+009F', 'a@example.com\u009f', 'U+009F at character 14'],
    ])('answers 400 naming email_address for %s, and stores nothing', async (_label, email, found) => {
      const res = await call({ email_address: email });
      expectError(res, 400);
      expect(res.body.error).toBe(`email_address: must not contain control characters (found ${found})`);
      expect(await stored(email)).toBe(0);
    });

    it('accepts the characters next to the control ranges (space, U+00A0, U+00C0)', async () => {
      const res = await call({ email_address: 'a b\u00a0\u00c0@example.com' });
      expect(res.status).toBe(200);
    });

    it('refuses 1,000 four-byte characters (4,012 bytes, under 1,024 characters) with 400 naming email_address: at most 800 bytes in UTF-8', async () => {
      const email = `${'\u{1F600}'.repeat(1_000)}@example.com`;
      expect([...email].length).toBeLessThanOrEqual(1_024);
      const res = await call({ email_address: email });
      expectError(res, 400);
      expect(res.body.error).toBe('email_address: must be at most 800 bytes in UTF-8');
    });

    it('accepts exactly 800 bytes (two-byte characters) and refuses 801', async () => {
      const at800 = `${'é'.repeat(394)}@example.com`; // 788 + 12 bytes
      expect(Buffer.byteLength(at800)).toBe(800);
      expect((await call({ email_address: at800 })).status).toBe(200);
      expect(await stored(at800)).toBe(1);
      const res = await call({ email_address: `a${at800}` });
      expectError(res, 400);
      expect(res.body.error).toContain('email_address');
    });
  });
});

describe('routes and methods', () => {
  it.each(['/v1/public/verfy', '/v1/verify', '/v2/public/verify', '/docs/nothing'])('answers 404 for POST %s', async (path) => {
    const res = await post(server.url, path, { email_address: 'a@example.com' }, bearer(project.keys.access_token));
    expectStatusError(res, 404);
  });

  it('answers 404 in the {error, code} shape under /v1/intelligence', async () => {
    expectPlainError(await post(server.url, '/v1/intelligence/extra', {}, apiKey(project.keys.private_key)), 404);
  });

  it.each([
    ['GET', '/v1/public/verify'],
    ['PUT', '/v1/public/verify'],
    ['DELETE', '/v1/public/ip'],
    ['GET', '/v1/public/ip'],
  ])('answers 405 for %s %s, with an Allow header naming POST', async (method, path) => {
    const res = await send(method, server.url, path, method === 'GET' ? undefined : { email_address: 'a@example.com' });
    expectStatusError(res, 405);
    expect(res.headers.get('allow')).toMatch(/POST/);
  });

  it.each([
    ['GET', '/v1/intelligence'],
    ['GET', '/v1/fingerprint'],
  ])('answers 405 {error, code} for %s %s', async (method, path) => {
    const res = await send(method, server.url, path);
    expectPlainError(res, 405);
  });
});
