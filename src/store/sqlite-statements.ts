// An embedded SQLite file's hot statements on better-sqlite3 (knex client `better-sqlite3`, database.ts),
// synchronous on the event loop, each text prepared once per connection and kept (docs/decisions/0065):
// - The group commit (event-writer.ts) as one `transaction.immediate` of its statements with bound values:
//   one turn of the loop, no promise per statement. A write lock held elsewhere is waited for off the loop
//   (lockWait), not in SQLite's busy handler.
// - The request path's reads (events.ts's Reads: velocity, intelligence's history) on the read pool's
//   connection: a WAL reader, never behind a knex transaction on the writer.
// Statements are mirrored on knex's `query` event while something listens, so every statement of the store
// stays observable in one place.
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { CommitStatements } from './event-writer.js';
import type { Statement } from './velocity-counters.js';
import type { Reads } from './velocity-queries.js';

type Rows = Array<Record<string, unknown>>;
type Connection = BetterSqlite3.Database;

/** Statements kept prepared per connection; past it the least recently used goes (a commit's texts vary with its row count). */
const MAX_PREPARED = 64;

/**
 * How long any other statement on an embedded file (knex's: projects, keys, domain facts, retention) waits for
 * another connection's write lock, on the event loop (better-sqlite3 is synchronous): short, so a lock held
 * elsewhere answers 503 quickly instead of stalling every request, and the next call tries again.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 200;

/**
 * How long a commit waits for another connection's write lock (a second process, the CLI's retention, a knex
 * transaction here) before it fails as an outage (SQLITE_BUSY: 503): tried again every LOCK_RETRY_MS with the
 * busy handler off, so the wait never holds the event loop.
 */
export const COMMIT_LOCK_WAIT_MS = 5_000;
const LOCK_RETRY_MS = 5;

const preparedOf = new WeakMap<Connection, Map<string, BetterSqlite3.Statement>>();

/** `sql` prepared on `conn` (kept, least recently used dropped past MAX_PREPARED). */
function prepare(conn: Connection, sql: string): BetterSqlite3.Statement {
  let held = preparedOf.get(conn);
  if (!held) {
    held = new Map();
    preparedOf.set(conn, held);
  }
  const found = held.get(sql);
  if (found) {
    held.delete(sql);
    held.set(sql, found);
    return found;
  }
  const statement = conn.prepare(sql);
  held.set(sql, statement);
  if (held.size > MAX_PREPARED) held.delete(held.keys().next().value as string);
  return statement;
}

interface SqliteClient {
  config?: { client?: unknown };
  acquireConnection(): Promise<Connection>;
  releaseConnection(conn: Connection): Promise<unknown>;
}

/** knex's client when it is better-sqlite3's, else null. */
function sqliteClient(knex: Knex): SqliteClient | null {
  const client = knex.client as SqliteClient;
  return client.config?.client === 'better-sqlite3' ? client : null;
}

/** `statement`'s rows (a statement returning none: an empty list), mirrored on knex's events while something listens. */
function runOn(knex: Knex, conn: Connection, statement: Statement): Rows {
  if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', ...statement });
  const prepared = prepare(conn, statement.sql);
  let rows: Rows = [];
  if (prepared.reader) rows = prepared.all(statement.bindings) as Rows;
  else prepared.run(statement.bindings);
  if (knex.listenerCount('query-response') > 0) knex.emit('query-response', rows, { method: 'raw', ...statement });
  return rows;
}

/**
 * Read statements on knex's SQLite connections, each run synchronously; null when knex's client is not
 * better-sqlite3. With `hold` (knex's pool is the reads' own: database.ts's read pool) one connection is taken
 * at the first read and kept until `release()`, with no acquire per read; else each read acquires and
 * releases one. A read is bounded (its LIMIT), and a WAL reader waits for no writer.
 */
export function sqliteReads(knex: Knex, hold = false): (Reads & { release(): Promise<void> }) | null {
  const client = sqliteClient(knex);
  if (!client) return null;
  if (!hold) {
    return {
      async all(statement) {
        const conn = await client.acquireConnection();
        try {
          return runOn(knex, conn, statement);
        } finally {
          await client.releaseConnection(conn);
        }
      },
      release: async () => undefined,
    };
  }
  let held: Connection | null = null;
  let taking: Promise<Connection> | null = null;
  return {
    async all(statement) {
      if (!held) {
        taking ??= client.acquireConnection().finally(() => {
          taking = null;
        });
        held = await taking;
      }
      return runOn(knex, held, statement);
    },
    async release() {
      const conn = held ?? (await taking?.catch(() => null)) ?? null;
      held = null;
      if (conn) await client.releaseConnection(conn);
    },
  };
}

/** The writer connection's PRAGMA data_version (velocity-cache.ts), unobserved; null when knex's client is not better-sqlite3. */
export function sqliteDataVersion(knex: Knex): (() => Promise<number>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;
  return async () => {
    const conn = await client.acquireConnection();
    try {
      return Number(conn.pragma('data_version', { simple: true }));
    } finally {
      await client.releaseConnection(conn);
    }
  };
}

const isBusy = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === 'string' && String((error as { code: string }).code).startsWith('SQLITE_BUSY');

/**
 * Runs a commit on knex's SQLite writer connection in one immediate transaction of prepared statements
 * (rolled back when one fails); null when knex's client is not better-sqlite3. The new address rows are
 * returned by their insert, so the distinct counts are exact (counterWrites).
 */
export function sqliteCommits(knex: Knex): ((writes: CommitStatements) => Promise<void>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;
  /** Whether the last attempt's transaction began: a busy attempt is tried again only when it did not. */
  let entered = false;
  const transactions = new WeakMap<Connection, (writes: CommitStatements) => void>();
  const commitOn = (conn: Connection) => {
    let commit = transactions.get(conn);
    if (!commit) {
      commit = conn.transaction((writes: CommitStatements) => {
        entered = true;
        for (const statement of writes.events) runOn(knex, conn, statement);
        const inserted = writes.counters.first.map((statement) => runOn(knex, conn, statement));
        for (const statement of [...writes.counters.rest(inserted), ...writes.usage]) runOn(knex, conn, statement);
      }).immediate;
      transactions.set(conn, commit);
    }
    return commit;
  };

  return async (writes) => {
    const conn = await client.acquireConnection();
    const started = performance.now();
    try {
      const commit = commitOn(conn);
      for (;;) {
        // The lock is taken by BEGIN IMMEDIATE, before any statement: a busy attempt has written nothing.
        conn.pragma('busy_timeout = 0');
        entered = false;
        try {
          commit(writes);
          return;
        } catch (error) {
          if (entered || !isBusy(error) || performance.now() - started >= COMMIT_LOCK_WAIT_MS) throw error;
        } finally {
          conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
        }
        await sleep(LOCK_RETRY_MS);
      }
    } finally {
      await client.releaseConnection(conn);
    }
  };
}
