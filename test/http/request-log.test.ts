// Every answer carries X-Request-Id (a sane incoming one kept, anything else replaced by a UUID); every
// error body carries the same id, in both error shapes and for refusals node:http makes before Koa;
// every request writes one access log line (method, route pattern, status, ms, id, and a 4xx's reason
// without the keys it may quote), never the raw path; a body refused before routing is logged under its route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { captureLog } from '../support/log-capture.js';
import { rawExchange } from '../support/raw-http.js';
import { apiKey, bearer, post, send, startService, type TestServer } from '../support/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
let project: CreatedProject;
const captured = captureLog('info');

beforeAll(async () => {
  server = await startService({ compose: { log: captured.log } });
  project = await server.createProject({ name: 'ids' });
});
afterAll(() => server?.close());

const verify = (headers: Record<string, string> = {}) =>
  post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, { ...bearer(project.keys.access_token), ...headers });

describe('X-Request-Id', () => {
  it('is made for a request that brings none', async () => {
    const res = await verify();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    const again = await verify();
    expect(again.headers.get('x-request-id')).not.toBe(res.headers.get('x-request-id'));
  });

  it.each([
    ['a UUID', 'f4b1c3a0-1d2e-4f5a-8b9c-0d1e2f3a4b5c'],
    ['a proxy-style id', 'req-42:edge.eu/1'],
    ['128 characters', 'x'.repeat(128)],
  ])('keeps a sane incoming one: %s', async (_name, id) => {
    expect((await verify({ 'x-request-id': id })).headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['too long', 'x'.repeat(129)],
    ['with a space', 'a b'],
    ['with a quote', 'a"b'],
    ['with non-ASCII', 'é'],
    ['empty', ''],
  ])('replaces an incoming one that is not sane: %s', async (_name, id) => {
    const res = await verify({ 'x-request-id': id });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('error bodies carry the request id', () => {
  it.each([
    ['verify 401 (no token)', () => post(server.url, '/v1/public/verify', { email_address: 'a@example.com' })],
    ['verify 400 (bad body)', () => post(server.url, '/v1/public/verify', { email_address: 1 }, bearer(project.keys.access_token))],
    ['ip 405', () => send('GET', server.url, '/v1/public/ip')],
    ['404 of no route', () => post(server.url, '/nowhere', {})],
  ])('in the status shape: %s', async (_name, call) => {
    const res = await call();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body.status).toBe(false);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.id).toBe(res.headers.get('x-request-id'));
  });

  it.each([
    ['intelligence 401', () => post(server.url, '/v1/intelligence', { email_address: 'a@example.com' }, apiKey('nope'))],
    ['intelligence 400', () => post(server.url, '/v1/intelligence', {}, apiKey(project.keys.private_key))],
    ['fingerprint 401', () => post(server.url, '/v1/fingerprint', {}, apiKey('nope'))],
  ])('in the plain shape: %s', async (_name, call) => {
    const res = await call();
    expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'id']);
    expect(res.body.id).toBe(res.headers.get('x-request-id'));
  });

  it('keeps an incoming id in the error body too', async () => {
    const res = await post(server.url, '/v1/public/verify', {}, { 'x-request-id': 'trace-7' });
    expect(res.status).toBe(401);
    expect(res.body.id).toBe('trace-7');
  });

  it('also for a request node:http refuses before Koa (a bad request line)', async () => {
    const reply = await rawExchange(server.port, 'POST /v1/public/verify HTTP/1.1 extra\r\n\r\n');
    expect(reply.status).toBe(400);
    const body = JSON.parse(reply.body);
    expect(body.id).toMatch(UUID);
    expect(reply.headers['x-request-id']).toBe(body.id);
  });
});

describe('access log', () => {
  it('writes one line per request with method, route pattern, status, ms and id', async () => {
    captured.clear();
    const ok = await verify();
    const missing = await post(server.url, '/v1/secret-path-abc?token=xyz', {});
    const lines = captured.lines.filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 30, method: 'POST', route: '/v1/public/verify', status: 200, id: ok.headers.get('x-request-id') });
    expect(lines[0]?.ms).toEqual(expect.any(Number));
    expect(lines[1]).toMatchObject({ method: 'POST', route: 'unmatched', status: 404, id: missing.body.id });
    expect(JSON.stringify(captured.lines)).not.toMatch(/secret-path-abc|xyz|a@example\.com|etv_/);
  });
});

describe('the access line of a refusal', () => {
  const accessLine = (res: { headers: Headers }) => {
    const id = res.headers.get('x-request-id');
    const lines = captured.lines.filter((line) => line.msg === 'request' && line.id === id);
    expect(lines).toHaveLength(1);
    return lines[0];
  };

  it.each([
    ['a body that is not JSON', '/v1/public/verify', '{"email_address": "a@example.com",}', 400, '/v1/public/verify', /^request body is not valid JSON: /],
    [
      'a body that is not JSON, the path in capitals with a trailing slash',
      '/V1/Intelligence/',
      '{',
      400,
      '/v1/intelligence',
      /^request body is not valid JSON: /,
    ],
    ['a body that is no object', '/v1/fingerprint', '"text"', 400, '/v1/fingerprint', /^request body must be a JSON object$/],
    ['a body over the limit', '/v1/public/ip', `[${'1,'.repeat(9000)}1]`, 413, '/v1/public/ip', /^request body is larger than 16384 bytes$/],
  ])('%s: under its route, with its reason', async (_label, path, raw, status, route, reason) => {
    const res = await post(server.url, path, raw, bearer(project.keys.access_token));
    expect(res.status).toBe(status);
    expect(accessLine(res)).toMatchObject({ level: 30, method: 'POST', route, status, reason: expect.stringMatching(reason) });
    expect(accessLine(res)?.reason).toBe(res.body.error);
  });

  it('a refused key: the reason, never the key', async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(project.keys.private_key));
    expect(res.status).toBe(401);
    const line = accessLine(res);
    expect(line).toMatchObject({ route: '/v1/public/verify', status: 401, reason: expect.stringMatching(/^invalid credentials: this is a private key/) });
    expect(JSON.stringify(line)).not.toContain(project.keys.private_key.slice(7));
  });

  it('a body field: the field and the problem', async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 1 }, bearer(project.keys.access_token));
    expect(accessLine(res)).toMatchObject({ route: '/v1/public/verify', status: 400, reason: 'email_address: must be of type string' });
  });

  it('a JSON syntax error quoting a key or a fingerprint from the body: only their prefix is logged', async () => {
    const fingerprint = `fp1.db1.${'F'.repeat(60)}`;
    for (const secret of [project.keys.private_key, fingerprint]) {
      const res = await post(server.url, '/v1/intelligence', `{"a": ${secret}}`, apiKey(project.keys.private_key));
      expect(res.status).toBe(400);
      const reason = String(accessLine(res)?.reason);
      expect(reason).toMatch(/^request body is not valid JSON: .*(etv_sk_|fp1\.)…/);
      // V8 quotes ten characters past the error: the prefix and three more, which the log drops.
      expect(res.body.error).toContain(secret.slice(0, 10));
      expect(reason).not.toContain(secret.slice(0, 10));
    }
  });

  it('an unknown route: the reason without the path', async () => {
    const res = await post(server.url, '/v1/secret-path-abc', {});
    expect(res.status).toBe(404);
    expect(accessLine(res)).toMatchObject({ route: 'unmatched', status: 404, reason: 'no route for this path' });
  });

  it('a success: no reason', async () => {
    const res = await verify();
    expect(res.status).toBe(200);
    expect(accessLine(res)).not.toHaveProperty('reason');
  });
});

describe('ACCESS_LOG=off', () => {
  it('writes no access log line, and still returns the request id', async () => {
    const quiet = captureLog('info');
    const other = await startService({ env: { ACCESS_LOG: 'off' }, compose: { log: quiet.log } });
    try {
      const res = await post(other.url, '/v1/public/ip', {});
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
      expect(quiet.lines.filter((line) => line.msg === 'request')).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
