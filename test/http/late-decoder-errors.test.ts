// A truncated gzip body that inflates past the body limit: answered 413, and the decompression stream's
// late error (after the body parser gave up on it) is not an unhandled 'error' event, which would end
// the process (`serve` exited with code 1 on one such request, before any authentication).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/http/middleware/json-body.js';
import { post, startService, type TestServer } from '../support/server.js';
import { expectStatusError } from './contract.js';

let server: TestServer;
const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  server = await startService();
});
afterAll(() => server.close());
// In `serve` nothing handles an uncaught exception: the process exits. Here it is recorded.
beforeEach(() => {
  uncaught.length = 0;
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
});

it('answers 413 to a truncated gzip body that inflates past the limit, and raises nothing afterwards', async () => {
  const inflated = JSON.stringify({ padding: randomBytes(BODY_LIMIT_BYTES).toString('hex') });
  const gzip = gzipSync(inflated);
  const truncated = gzip.subarray(0, gzip.length - 6);
  for (const path of ['/v1/public/ip', '/v1/public/verify']) {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: truncated,
    });
    expectStatusError({ status: res.status, body: await res.json() }, 413);
  }
  // The late error, if any, is emitted when the request's last bytes reach the decompressor: by the time
  // a later request is answered.
  const after = await post(server.url, '/v1/public/ip');
  expect(after.status).toBe(200);
  expect(uncaught).toEqual([]);
});
