// What each endpoint answers for a body it cannot use, in that endpoint's error shape: the body is read
// as JSON before routing, so every route (and an unknown one) refuses the same bodies the same way.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { BODY_LIMIT_BYTES } from '../../src/http/middleware/json-body.js';
import { type CapturedLog, captureLog } from '../support/log-capture.js';
import { apiKey, bearer, post, type Reply, send, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

let server: TestServer;
let project: CreatedProject;
let captured: CapturedLog;

beforeAll(async () => {
  captured = captureLog();
  server = await startService({ compose: { log: captured.log } });
  project = await server.createProject({ name: 'bodies' });
  captured.clear();
});
afterAll(() => server.close());

interface Endpoint {
  path: string;
  headers: () => Record<string, string>;
  expectError: (reply: Reply, status: number) => void;
}

const ENDPOINTS: Endpoint[] = [
  { path: '/v1/public/verify', headers: () => bearer(project.keys.access_token), expectError: expectStatusError },
  { path: '/v1/intelligence', headers: () => apiKey(project.keys.private_key), expectError: expectPlainError },
  { path: '/v1/fingerprint', headers: () => apiKey(project.keys.public_key), expectError: expectPlainError },
  { path: '/v1/public/ip', headers: () => ({}), expectError: expectStatusError },
];

/** POSTs raw bytes, so a test can set Content-Encoding and send what it names. */
async function postBytes(path: string, bytes: Uint8Array, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bytes });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text, headers: res.headers };
}

describe.each(ENDPOINTS)('$path', ({ path, headers, expectError }) => {
  it.each([
    ['a JSON string', '"a@example.com"'],
    ['a number', '42'],
    ['true', 'true'],
    ['null', 'null'],
    ['only whitespace', ' \n\t'],
    ['text that is not JSON', 'email_address=a@example.com'],
  ])('answers 400 "request body must be a JSON object" for %s', async (_label, raw) => {
    const res = await post(server.url, path, raw, headers());
    expectError(res, 400);
    expect(res.body.error).toBe('request body must be a JSON object');
  });

  it.each([
    ['an unfinished object', '{', "request body is not valid JSON: Expected property name or '}' in JSON at position 1"],
    ['an unfinished array', '[1,', 'request body is not valid JSON: Unexpected end of JSON input'],
    ['a __proto__ key', '{"__proto__": {"x": 1}}', 'request body is not valid JSON: Object contains forbidden prototype property'],
  ])('answers 400 saying the body is not valid JSON for %s', async (_label, raw, message) => {
    const res = await post(server.url, path, raw, headers());
    expectError(res, 400);
    expect(res.body.error).toBe(message);
  });

  it('answers 413 to a 4 MB body while it is still being sent, then closes the connection (no reset)', async () => {
    // The refusal comes before the body is read whole: the rest is read and thrown away, so the client
    // gets its answer instead of a reset, and the connection is not reused for the rest of the body.
    const huge = JSON.stringify({ email_address: 'a@example.com', padding: 'x'.repeat(4 * 1024 * 1024) });
    const res = await postBytes(path, new TextEncoder().encode(huge), headers());
    expectError(res, 413);
    expect(res.headers.get('connection')).toBe('close');
  });

  it(`answers 413 for a body over ${BODY_LIMIT_BYTES} bytes, counted after decompression`, async () => {
    const big = JSON.stringify({ email_address: 'a@example.com', padding: 'x'.repeat(BODY_LIMIT_BYTES) });
    const plain = await post(server.url, path, big, headers());
    expectError(plain, 413);
    expect(plain.body.error).toBe(`request body is larger than ${BODY_LIMIT_BYTES} bytes`);
    const zipped = gzipSync(big);
    expect(zipped.length).toBeLessThan(BODY_LIMIT_BYTES);
    const inflated = await postBytes(path, zipped, { ...headers(), 'content-encoding': 'gzip' });
    expectError(inflated, 413);
    expect(inflated.body.error).toBe(`request body is larger than ${BODY_LIMIT_BYTES} bytes`);
  });

  const json = JSON.stringify({ email_address: 'a@example.com' });
  it.each([
    ['text sent as gzip', new TextEncoder().encode(json), 'gzip', 'request body is not valid gzip data: incorrect header check'],
    ['a truncated gzip stream', gzipSync(json).subarray(0, 12), 'gzip', 'request body is not valid gzip data: unexpected end of file'],
    ['a truncated deflate stream', deflateSync(json).subarray(0, 8), 'deflate', 'request body is not valid deflate data: unexpected end of file'],
    ['br garbage', new TextEncoder().encode('not brotli at all'), 'br', 'request body is not valid br data: Decompression failed'],
    ['a truncated br stream', brotliCompressSync(json).subarray(0, 5), 'br', 'request body is not valid br data: unexpected end of file'],
  ])('answers 400 for %s, logged below warn', async (_label, bytes, encoding, message) => {
    captured.clear();
    const res = await postBytes(path, bytes, { ...headers(), 'content-encoding': encoding });
    expectError(res, 400);
    expect(res.body.error).toBe(message);
    expect(captured.above('info')).toEqual([]);
  });

  it.each(['compress', 'x-unknown', 'zstd'])('answers 415 naming an unsupported Content-Encoding (%s), logged below warn', async (encoding) => {
    captured.clear();
    const res = await postBytes(path, new TextEncoder().encode('{}'), { ...headers(), 'content-encoding': encoding });
    expectError(res, 415);
    expect(res.body.error).toBe(`Unsupported Content-Encoding: ${encoding}`);
    expect(captured.above('info')).toEqual([]);
  });

  it('quotes at most 64 characters of an unsupported Content-Encoding', async () => {
    const res = await postBytes(path, new TextEncoder().encode('{}'), { ...headers(), 'content-encoding': `x-${'e'.repeat(8000)}` });
    expectError(res, 415);
    expect(res.body.error).toBe(`Unsupported Content-Encoding: x-${'e'.repeat(61)}…`);
  });
});

describe('bodies that are accepted', () => {
  it.each([
    ['verify', '/v1/public/verify', () => bearer(project.keys.access_token)],
    ['intelligence', '/v1/intelligence', () => apiKey(project.keys.private_key)],
  ])('%s reads a gzip-encoded body', async (_label, path, headers) => {
    const res = await postBytes(path, gzipSync(JSON.stringify({ email_address: 'a@example.com' })), { ...headers(), 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
  });

  it('verify and intelligence read an empty body as {} and name the missing email_address', async () => {
    const verify = await post(server.url, '/v1/public/verify', undefined, bearer(project.keys.access_token));
    expectStatusError(verify, 400);
    expect(verify.body.error).toBe('email_address: is required');
    const intelligence = await post(server.url, '/v1/intelligence', '', apiKey(project.keys.private_key));
    expectPlainError(intelligence, 400);
    expect(intelligence.body.error).toBe('email_address: is required');
  });

  it('fingerprint accepts an empty body as {}', async () => {
    for (const body of [undefined, '', '{}']) {
      const res = await post(server.url, '/v1/fingerprint', body, apiKey(project.keys.public_key));
      expect(res.status).toBe(200);
      expect(res.body.fingerprint).toMatch(/^fp1\./);
    }
  });

  it('ip ignores an empty body, an object and an array', async () => {
    for (const body of [undefined, '{}', '[]']) {
      const res = await post(server.url, '/v1/public/ip', body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
    }
  });
});

describe('refusals before any route', () => {
  it('a body that is not an object is refused (400) even on an unknown path; a good one gets 404', async () => {
    const bad = await post(server.url, '/v1/nowhere', '42');
    expectStatusError(bad, 400);
    expect(bad.body.error).toBe('request body must be a JSON object');
    const good = await post(server.url, '/v1/nowhere', {});
    expectStatusError(good, 404);
    expect(good.body.error).toBe('no route for POST /v1/nowhere');
  });

  it.each([
    ['/v1/public/verify', expectStatusError],
    ['/v1/intelligence', expectPlainError],
  ])('answers 501 for a method no route knows, on %s, naming it', async (path, expectError) => {
    const res = await send('PROPFIND', server.url, path);
    expectError(res, 501);
    expect(res.body.error).toBe('method PROPFIND is not implemented: use POST');
  });

  it('405 names the allowed method', async () => {
    const res = await send('PUT', server.url, '/v1/public/ip', {});
    expectStatusError(res, 405);
    expect(res.body.error).toBe('method PUT is not allowed here: use POST');
  });
});
