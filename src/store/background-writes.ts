// Writes the service makes beside the store thread's commits, off the request's path: a key's last use
// (keys.ts, once a minute), a domain's facts (domain-facts.ts, with the network checks on), the usage counts
// (usage.ts, every second for projects that count). Through knex where there is no store thread; an embedded
// file's go to the thread's own connection (nativeStatement, SqliteThread.write), so that they leave its
// velocity caches in place (through knex's connection each emptied them: another connection wrote). On an embedded SQLite file knex's connection
// runs on the event loop, and a write that found the write lock taken (under load the store thread commits
// every millisecond or so) slept in SQLite's busy handler, whose steps (1, 2, 5, 10, 15, 20, 25 ms …) each
// end in a single try: the last-use write stopped every request for 30-86 ms once a minute at 1,000 verifies
// a second (issue 12). Here such a write asks for the lock without waiting (busy_timeout 0) and, refused,
// tries again after a timer, the event loop free meanwhile, until BUSY_TIMEOUT_MS: then it fails as the
// database being unavailable (SQLITE_BUSY), as it did after busy_timeout. PostgreSQL's waits do not hold the
// event loop: there the work runs as it is.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { BUSY_TIMEOUT_MS } from './sqlite-writes.js';
import type { Statement } from './velocity-counters.js';

/** Runs `work` in one transaction; on SQLite without holding the event loop while the write lock is taken. */
export type BackgroundWrite = <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;

/** The first wait after a refusal, doubled after each up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 1;
const MAX_WAIT_MS = 16;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** `timeoutMs`: how long to keep trying (BUSY_TIMEOUT_MS unless set: a test's). */
export function backgroundWrites(knex: Knex, timeoutMs = BUSY_TIMEOUT_MS): BackgroundWrite {
  const client = (knex.client as { config?: { client?: unknown } }).config?.client;
  if (client !== 'better-sqlite3') return (work) => knex.transaction(work);
  return async (work) => {
    const deadline = Date.now() + timeoutMs;
    for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
      try {
        return await knex.transaction(async (trx) => {
          // The connection's own setting (one pooled connection, ours for the transaction), put back before
          // it is released.
          await trx.raw('pragma busy_timeout = 0');
          try {
            return await work(trx);
          } finally {
            await trx.raw(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
          }
        });
      } catch (error) {
        if (!isBusy(error) || Date.now() + wait > deadline) throw error;
        await sleep(wait);
      }
    }
  };
}

/** A knex query as the store thread's statements take it (SqliteThread.write): its SQL and bindings, not run. */
export function nativeStatement(query: Knex.QueryBuilder): Statement {
  const { sql, bindings } = query.toSQL().toNative();
  return { sql, bindings: [...bindings] };
}
