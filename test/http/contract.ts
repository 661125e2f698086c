// What the API contract (docs/api.md; its vocabularies in src/vocabulary.ts and the plugins' words) fixes, as data the HTTP tests assert against.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { registry } from '../../plugins/index.js';
import { wordsOf } from '../../src/engine/words.js';
import { ACTIONS as VOCABULARY_ACTIONS } from '../../src/vocabulary.js';

const words = wordsOf(registry);
export const ACTIONS: readonly string[] = VOCABULARY_ACTIONS;
export const STEP_IDS: ReadonlySet<string> = new Set(words.steps);
export const CHECKED_TYPES: ReadonlySet<string> = new Set(words.checkedTypes);

export const VELOCITY_ANALYZED = [
  'emails_in_ip',
  'total_email_in_ip',
  'emails_in_ip_last_5_minutes',
  'emails_in_ip_last_10_minutes',
  'emails_in_ip_last_15_minutes',
  'emails_in_ip_last_30_minutes',
  'emails_in_ip_last_2_hour',
  'emails_in_ip_last_3_hour',
];

/** A date, a time and a numeric UTC offset, as emails_in_ip's created_time is documented. */
export const CREATED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

export function fixturePolicy(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/policies/${name}.yaml`, import.meta.url)), 'utf8');
}

/**
 * The verify/ip error body: {code, error, id, status: false}. `echoed`: what the client sent, which the
 * message may quote (see expectNoInternals).
 */
export function expectStatusError(reply: { status: number; body: unknown }, status: number, echoed = ''): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ code: status, error: expect.any(String), id: expect.any(String), status: false });
  expectNoInternals(reply.body, echoed);
}

/** The intelligence/fingerprint error body: exactly {error, code, id} (id: the request's X-Request-Id). `echoed` as for expectStatusError. */
export function expectPlainError(reply: { status: number; body: unknown }, status: number, echoed = ''): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.any(String), code: status, id: expect.any(String) });
  expectNoInternals(reply.body, echoed);
}

// Read in the JSON text, where a Windows path's backslash is doubled; `\uXXXX` is the service's own
// escape of a character it quotes from the client (echoed-input.ts), not a path.
const INTERNALS = [
  /\bat \S+ \(|\bat (file:|\/|node:)/g,
  /\/(work|home|tmp|usr)\/|node_modules|\.[jt]s:\d+|[A-Za-z]:\\\\(?!u[0-9A-Fa-f]{4})/g,
  /knex|sqlite|SQLITE_|stack/gi,
];

/**
 * No stack frame, source path or library name leaks into an error body. A look-alike that is found in
 * `echoed` (the client's own input, JSON-encoded, which a 4xx message may quote) does not count.
 */
export function expectNoInternals(body: unknown, echoed = ''): void {
  const text = JSON.stringify(body);
  const leaked = INTERNALS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[0]).filter((found) => !echoed.includes(found)));
  expect(leaked, text).toEqual([]);
}
