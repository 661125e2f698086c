// Error messages that quote what the client sent (a field name, a JSON snippet, a path, a header)
// quote at most 64 characters of it and escape control characters, in the response and in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { BODY_LIMIT_BYTES } from '../../src/http/middleware/json-body.js';
import { type CapturedLog, captureLog } from '../support/log-capture.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

let server: TestServer;
let project: CreatedProject;
let sandbox: CreatedProject;
let captured: CapturedLog;

beforeAll(async () => {
  captured = captureLog();
  server = await startService({ compose: { log: captured.log } });
  project = await server.createProject({ name: 'echo' });
  sandbox = await server.createProject({ name: 'echo-sandbox', sandbox: true });
});
afterAll(() => server.close());

/** No raw control character (newline, ESC, …) and no line or paragraph separator. */
const RAW_CONTROL = /[\p{Cc}\u2028\u2029]/u;
const HOSTILE = 'x\n\u001b[31mred\r\nlevel=50';

/** The response's message and the log line of the refusal: both short, neither with a raw control character. */
function expectQuotedSafely(res: Reply, maxChars: number): string {
  const message: string = res.body.error;
  expect(message.length).toBeLessThanOrEqual(maxChars);
  expect(message).not.toMatch(RAW_CONTROL);
  const logged = captured.lines.filter((line) => line.msg === 'request refused').at(-1);
  expect(logged?.message).toBe(message);
  expect(String(logged?.path)).not.toMatch(RAW_CONTROL);
  return message;
}

describe('an unknown field', () => {
  it(`a name that fills the body (${BODY_LIMIT_BYTES - 100} characters): the 400 quotes 64 characters of it`, async () => {
    const name = 'n'.repeat(BODY_LIMIT_BYTES - 100);
    const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com', [name]: 1 }, bearer(project.keys.access_token));
    expectStatusError(res, 400);
    const message = expectQuotedSafely(res, 200);
    expect(message).toBe(`${'n'.repeat(64)}…: unknown field "${'n'.repeat(64)}…"`);
  });

  it('a name with a newline and a terminal escape: escaped as \\uXXXX', async () => {
    const res = await post(server.url, '/v1/intelligence', { email_address: 'a@example.com', [HOSTILE]: 1 }, apiKey(project.keys.private_key));
    expectPlainError(res, 400);
    const message = expectQuotedSafely(res, 200);
    expect(message).toBe('x\\u000a\\u001b[31mred\\u000d\\u000alevel=50: unknown field "x\\u000a\\u001b[31mred\\u000d\\u000alevel=50"');
  });

  it('in a custom policy: the whole message is bounded and escaped', async () => {
    const name = `${HOSTILE}${'p'.repeat(BODY_LIMIT_BYTES - 200)}`;
    const res = await post(server.url, '/v1/intelligence', { email_address: 'a@example.com', custom_policy: { [name]: 1 } }, apiKey(sandbox.keys.private_key));
    expectPlainError(res, 400);
    expect(expectQuotedSafely(res, 513)).toMatch(/^custom_policy\.x\\u000a\\u001b\[31mred/);
  });
});

describe('what else a message quotes', () => {
  it('a JSON syntax error quoting a control character', async () => {
    const res = await post(server.url, '/v1/public/verify', `[1,\n\u001b[31m${'y'.repeat(5000)}]`, bearer(project.keys.access_token));
    expectStatusError(res, 400);
    expect(expectQuotedSafely(res, 200)).toMatch(/^request body is not valid JSON: Unexpected token '\\u001b'/);
  });

  it('an unknown path of 8,000 characters', async () => {
    const path = `/v1/${'z'.repeat(8000)}`;
    const res = await post(server.url, path, {});
    expectStatusError(res, 404);
    expect(expectQuotedSafely(res, 200)).toBe(`no route for POST /v1/${'z'.repeat(60)}…`);
  });
});
