// Headers on every answer: X-Content-Type-Options: nosniff everywhere, Cache-Control: no-store on API
// answers (errors, 404, 405 and preflights included; the browser script keeps its own caching), and
// no framework or server banner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { rawExchange } from '../support/raw-http.js';
import { apiKey, bearer, post, type Reply, send, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let project: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'headers' });
  await server.service.store.projects.update(project.project.id, { allowedOrigins: ['https://shop.example'] });
});
afterAll(() => server.close());

const email = { email_address: 'a@example.com' };
const ANSWERS: [string, number, () => Promise<Reply>][] = [
  ['verify', 200, () => post(server.url, '/v1/public/verify', email, bearer(project.keys.access_token))],
  ['verify without a key', 401, () => post(server.url, '/v1/public/verify', email)],
  ['verify with a bad field', 400, () => post(server.url, '/v1/public/verify', { emial: 'a@example.com' }, bearer(project.keys.access_token))],
  ['intelligence', 200, () => post(server.url, '/v1/intelligence', email, apiKey(project.keys.private_key))],
  ['fingerprint', 200, () => post(server.url, '/v1/fingerprint', {}, apiKey(project.keys.public_key))],
  ['ip', 200, () => post(server.url, '/v1/public/ip')],
  [
    'a preflight',
    204,
    () => send('OPTIONS', server.url, '/v1/fingerprint', undefined, { origin: 'https://shop.example', 'access-control-request-method': 'POST' }),
  ],
  ['OPTIONS elsewhere', 200, () => send('OPTIONS', server.url, '/v1/public/verify')],
  ['an unknown path', 404, () => post(server.url, '/v1/nowhere', {})],
  ['another method', 405, () => send('GET', server.url, '/v1/public/verify')],
  ['an unknown method', 501, () => send('PROPFIND', server.url, '/v1/intelligence')],
  ['an oversize body', 413, () => post(server.url, '/v1/public/ip', 'x'.repeat(20_000))],
  ['an unsupported encoding', 415, () => post(server.url, '/v1/public/ip', '{}', { 'content-encoding': 'x-foo' })],
];

describe.each(ANSWERS)('%s (%i)', (_label, status, call) => {
  it('says nosniff and no-store, and names no framework or server', async () => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('server')).toBeNull();
  });
});

describe('GET /v1/fingerprint.js', () => {
  it('keeps its own caching, and says nosniff', async () => {
    const res = await send('GET', server.url, '/v1/fingerprint.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // As a browser revalidates (fetch alone would add `Cache-Control: no-cache`).
    const again = await send('GET', server.url, '/v1/fingerprint.js', undefined, {
      'if-none-match': res.headers.get('etag') ?? '',
      'cache-control': 'max-age=0',
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
  });
});

describe('answers node:http gives before Koa', () => {
  it.each([
    ['a lowercase method', 'post /v1/public/ip HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 501],
    ['a malformed header', 'POST /v1/public/ip HTTP/1.1\r\nHost: 127.0.0.1\r\nnot a header\r\n\r\n', 400],
    ['CONNECT', 'CONNECT internal.example:443 HTTP/1.1\r\nHost: internal.example:443\r\n\r\n', 405],
    ['headers over 16 KiB', `POST /v1/intelligence HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`, 431],
  ])('%s: nosniff and no-store too', async (_label, request, status) => {
    const raw = await rawExchange(server.port, request);
    expect(raw.status).toBe(status);
    expect(raw.headers['x-content-type-options']).toBe('nosniff');
    expect(raw.headers['cache-control']).toBe('no-store');
    expect(raw.headers.server).toBeUndefined();
  });
});
