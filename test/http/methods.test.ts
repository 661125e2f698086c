// Odd methods are the client's doing: 405 (with Allow) on a known path for a method the router knows,
// 501 for one it does not, in the path's error shape, and never an error-level log line. Methods
// node:http itself refuses (lowercase, unknown tokens) and CONNECT are answered the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapturedLog, captureLog } from '../support/log-capture.js';
import { rawExchange } from '../support/raw-http.js';
import { type Reply, send, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

let server: TestServer;
let captured: CapturedLog;

beforeAll(async () => {
  captured = captureLog();
  server = await startService({ compose: { log: captured.log } });
  captured.clear();
});
afterAll(() => server.close());

const PATHS: { path: string; allow: string; expectError: (reply: Pick<Reply, 'status' | 'body'>, status: number) => void }[] = [
  { path: '/v1/public/verify', allow: 'POST', expectError: expectStatusError },
  { path: '/v1/intelligence', allow: 'POST', expectError: expectPlainError },
  // Its OPTIONS is the CORS preflight.
  { path: '/v1/fingerprint', allow: 'OPTIONS, POST', expectError: expectPlainError },
  { path: '/v1/public/ip', allow: 'POST', expectError: expectStatusError },
];

describe.each(PATHS)('$path', ({ path, allow, expectError }) => {
  it.each(['PATCH', 'PUT', 'DELETE', 'GET'])('%s → 405 with Allow, logged below warn', async (method) => {
    captured.clear();
    const res = await send(method, server.url, path, method === 'GET' ? undefined : {});
    expectError(res, 405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.body.error).toBe(`method ${method} is not allowed here: use ${allow}`);
    expect(captured.above('info')).toEqual([]);
  });

  it.each(['PROPFIND', 'MKCOL', 'SEARCH', 'LOCK', 'PURGE'])('%s → 501 naming the method, logged below warn', async (method) => {
    captured.clear();
    const res = await send(method, server.url, path);
    expectError(res, 501);
    expect(res.body.error).toBe(`method ${method} is not implemented: use ${allow}`);
    expect(captured.above('info')).toEqual([]);
  });

  // fetch will not send these: TRACE is forbidden to it, and it upper-cases the lowercase names it knows.
  it.each(['TRACE', 'post', 'patch', 'get', 'FOO', 'BREW'])('%s (written by hand) → 501 in the error shape, logged below warn', async (method) => {
    captured.clear();
    const raw = await rawExchange(server.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expectError({ status: raw.status, body: JSON.parse(raw.body) }, 501);
    expect(JSON.parse(raw.body).error).toMatch(/^method (TRACE )?is not implemented/);
    expect(raw.headers['x-content-type-options']).toBe('nosniff');
    expect(captured.above('info')).toEqual([]);
  });
});

it('CONNECT → 405 with Allow: POST, not a silently dropped connection', async () => {
  captured.clear();
  const raw = await rawExchange(server.port, 'CONNECT internal.example:443 HTTP/1.1\r\nHost: internal.example:443\r\n\r\n');
  expectStatusError({ status: raw.status, body: JSON.parse(raw.body) }, 405);
  expect(raw.headers.allow).toBe('POST');
  expect(captured.above('info')).toEqual([]);
});

it('a header line that is not a header → 400 in the error shape, logged below warn', async () => {
  captured.clear();
  const raw = await rawExchange(server.port, 'POST /v1/intelligence HTTP/1.1\r\nHost: 127.0.0.1\r\nnot a header\r\n\r\n');
  expectPlainError({ status: raw.status, body: JSON.parse(raw.body) }, 400);
  expect(JSON.parse(raw.body).error).toBe('bad request: not a valid HTTP/1.1 request');
  expect(captured.above('info')).toEqual([]);
});
