// Error messages that quote what the client sent (a field name, a JSON snippet, a path, a header)
// quote at most 64 characters of it and escape control characters, in the response and in the log; no
// message is longer than MESSAGE_MAX_CHARS (512), and an unknown field's lists the known ones whole, or
// the nearest few, never a list cut short.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { MESSAGE_MAX_CHARS } from '../../src/http/middleware/errors.js';
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
    const message = expectQuotedSafely(res, 400);
    expect(message).toBe(
      `${'n'.repeat(63)}…: unknown field "${'n'.repeat(63)}…"; known fields: email_address, ipv4_address, ipv6_address, soft_check, show_results, show_steps, show_explain, fingerprint`,
    );
  });

  it('a name with a newline and a terminal escape: escaped as \\uXXXX', async () => {
    const res = await post(server.url, '/v1/intelligence', { email_address: 'a@example.com', [HOSTILE]: 1 }, apiKey(project.keys.private_key));
    expectPlainError(res, 400);
    const message = expectQuotedSafely(res, 200);
    expect(message).toBe(
      'x\\u000a\\u001b[31mred\\u000d\\u000alevel=50: unknown field "x\\u000a\\u001b[31mred\\u000d\\u000alevel=50"; known fields: email_address, fingerprint, custom_policy',
    );
  });

  it('in a custom policy: the whole message is bounded and escaped', async () => {
    const name = `${HOSTILE}${'p'.repeat(BODY_LIMIT_BYTES - 200)}`;
    const res = await post(server.url, '/v1/intelligence', { email_address: 'a@example.com', custom_policy: { [name]: 1 } }, apiKey(sandbox.keys.private_key));
    expectPlainError(res, 400);
    expect(expectQuotedSafely(res, MESSAGE_MAX_CHARS)).toMatch(
      /^custom_policy\.x\\u000a\\u001b\[31mred.*; known fields: version, stop_on_block, parent_rules$/,
    );
  });

  it('a mistyped name: the closest known one, and the known ones whole', async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com', show_result: true }, bearer(project.keys.access_token));
    expect(expectQuotedSafely(res, MESSAGE_MAX_CHARS)).toBe(
      'show_result: unknown field "show_result"; did you mean "show_results"? Known fields: email_address, ipv4_address, ipv6_address, soft_check, show_results, show_steps, show_explain, fingerprint',
    );
  });

  it('a custom policy field, when the known ones are too many to list: the nearest five, and how many there are', async () => {
    const rule = { field: 'domain_disposabel', operator: '==', target: { bool: true }, action: 'block' };
    const res = await post(
      server.url,
      '/v1/intelligence',
      { email_address: 'a@example.com', custom_policy: { parent_rules: [rule] } },
      apiKey(sandbox.keys.private_key),
    );
    expectPlainError(res, 400);
    const message = expectQuotedSafely(res, MESSAGE_MAX_CHARS);
    expect(message).toMatch(
      /^custom_policy\.parent_rules\.0\.field: unknown field "domain_disposabel"; did you mean "domain_disposable"\? Known fields \(the 5 nearest of \d+\): domain_disposable(, [a-z0-9_]+){4}$/,
    );
  });
});

describe(`no message is longer than ${MESSAGE_MAX_CHARS} characters`, () => {
  /** 64 characters that are each escaped to six or more: the longest quote a name can make. */
  const INVISIBLE = '\u202e\u0000\u{e0041}\u2028'.repeat(16);
  const intelligence = (body: unknown) => post(server.url, '/v1/intelligence', body, apiKey(sandbox.keys.private_key));
  const rule = (extra: Record<string, unknown>) => ({ field: 'domain_free', operator: '==', target: { bool: true }, action: 'block', ...extra });
  const calls: [string, () => Promise<Reply>][] = [
    [
      'an unknown verify field of invisible characters',
      () => post(server.url, '/v1/public/verify', { email_address: 'a@b.c', [INVISIBLE]: 1 }, bearer(project.keys.access_token)),
    ],
    ['an unknown custom_policy field', () => intelligence({ email_address: 'a@b.c', custom_policy: { [INVISIBLE]: 1 } })],
    [
      'an unknown field in the 50th parent rule',
      () => intelligence({ email_address: 'a@b.c', custom_policy: { parent_rules: [...Array(49).fill(rule({})), rule({ [INVISIBLE]: 1 })] } }),
    ],
    [
      'an unknown field in a rule target',
      () => intelligence({ email_address: 'a@b.c', custom_policy: { parent_rules: [rule({ target: { bool: true, [INVISIBLE]: 1 } })] } }),
    ],
    [
      'an unknown parent rule field of 64 characters in the 50th rule',
      () =>
        intelligence({ email_address: 'a@b.c', custom_policy: { parent_rules: [...Array(49).fill(rule({})), rule({ field: `domain_${'x'.repeat(57)}` })] } }),
    ],
    ['an unknown fingerprint device field', () => post(server.url, '/v1/fingerprint', { device: { [INVISIBLE]: 1 } }, apiKey(project.keys.public_key))],
    [
      'a JSON syntax error among invisible characters',
      () => post(server.url, '/v1/public/verify', `{"${INVISIBLE.repeat(10)}" ${INVISIBLE}}`, bearer(project.keys.access_token)),
    ],
    ['an unknown path of invisible characters', () => post(server.url, `/v1/${encodeURIComponent(INVISIBLE.repeat(10))}`, {})],
  ];
  it.each(calls)('%s', async (_label, call) => {
    const res = await call();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectQuotedSafely(res, MESSAGE_MAX_CHARS);
    // A list of known names is never cut: the message does not end in the middle of one.
    if (/known fields/.test(res.body.error)) expect(res.body.error).toMatch(/known fields[^:]*: [a-z0-9_]+(, [a-z0-9_]+)*$/);
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
    expect(expectQuotedSafely(res, 200)).toBe(`no route for POST /v1/${'z'.repeat(59)}…`);
  });
});
