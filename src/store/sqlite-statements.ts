// An embedded SQLite file's connections on better-sqlite3 (docs/decisions/0065): their pragmas, and statements
// prepared once per text and kept, for the writer thread (sqlite-writer-thread.ts) and for the request path's
// reads (events.ts's Reads: velocity, intelligence's history), which run synchronously on the read pool's
// connection (knex client `better-sqlite3`, database.ts): a WAL reader, never behind the writer. The reads are
// mirrored on knex's `query` event while something listens, so every statement of the store stays
// observable in one place.
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Statement } from './velocity-counters.js';
import type { Reads } from './velocity-queries.js';

type Rows = Array<Record<string, unknown>>;
type Connection = BetterSqlite3.Database;

/** Statements kept prepared per connection; past it the least recently used goes (a commit's texts vary with its row count). */
const MAX_PREPARED = 64;

/**
 * How long a statement on knex's connections (projects, keys, retention, migrations) waits for another
 * connection's write lock, on the event loop (better-sqlite3 is synchronous): short, so a lock held elsewhere
 * answers 503 quickly instead of stalling every request, and the next call tries again.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 200;

/**
 * How long the writer thread's commits and writes wait for another connection's write lock (a second process,
 * the CLI's retention, a knex transaction here) before they fail as an outage (SQLITE_BUSY: 503). The thread
 * waits; the event loop does not.
 */
export const COMMIT_LOCK_WAIT_MS = 5_000;

/** knex's connections' page cache: the request path's reads that the velocity cache does not answer (decision 0080). */
export const READ_CACHE_MB = 32;
/**
 * The writer thread's page cache: its commits touch the indexes' newest pages and a few counter pages, and a page
 * it misses is read on its own thread, never the event loop's (decision 0080: 4 MB took 39 MB off the peak RSS with every table loaded).
 */
export const WRITER_CACHE_MB = 4;

/**
 * A connection's settings. WAL lets readers run beside the writer; NORMAL syncs at checkpoints, not at every
 * commit (a commit survives a process crash; the last ones may be lost on power loss). The page cache (default
 * 2 MB) keeps the event and counter indexes in memory while history grows. Temporary files in memory: a commit's
 * counter upsert keeps a statement journal that would otherwise spill to disk.
 */
export const sqlitePragmas = (busyTimeoutMs: number, cacheMb = READ_CACHE_MB) =>
  `PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=${busyTimeoutMs}; PRAGMA cache_size=-${cacheMb * 1024}; PRAGMA temp_store=MEMORY;`;

const preparedOf = new WeakMap<Connection, Map<string, BetterSqlite3.Statement>>();

/** `sql` prepared on `conn` (kept, least recently used dropped past MAX_PREPARED). */
export function prepare(conn: Connection, sql: string): BetterSqlite3.Statement {
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
/** `statement` on knex's `query` event, for whoever watches every statement of the store (run elsewhere: knex does not see it). */
export function observed(knex: Knex, statement: Statement): void {
  if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', ...statement });
}

function runOn(knex: Knex, conn: Connection, statement: Statement): Rows {
  observed(knex, statement);
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
