// An embedded SQLite file's hot statements, on the connections of knex's pools (database.ts) but not one
// knex query at a time: prepared once per text and kept (docs/decisions/0065).
// - The group commit (event-writer.ts): its statements sent together, in three round trips to libuv's pool
//   (begin, the events and the new address rows; the other counters and the usage counts, built from what
//   the first returned; commit), where a knex query per statement took seven. The transaction and its
//   statements are those PostgreSQL runs through knex (CommitStatements).
// - The request path's reads (events.ts's Reads: velocity, intelligence's history), each bounded by the read
//   timeout, past which it is interrupted.
// Statements are mirrored on knex's `query` event while something listens, so every statement of the store
// stays observable in one place.
import knexModule, { type Knex } from 'knex';
import type sqlite3 from 'sqlite3';
import type { CommitStatements } from './event-writer.js';
import type { Statement } from './velocity-counters.js';
import type { Reads } from './velocity-queries.js';

type Rows = Array<Record<string, unknown>>;

/** Statements kept prepared per connection; past it the least recently used is finalized. */
const MAX_PREPARED = 64;

const preparedOf = new WeakMap<sqlite3.Database, Map<string, sqlite3.Statement>>();

/** `sql` prepared on `conn` (kept); the connection runs its statements one at a time, in the order sent. */
function prepared(conn: sqlite3.Database, sql: string): sqlite3.Statement {
  let held = preparedOf.get(conn);
  if (!held) {
    conn.serialize(); // queued statements run in order: a commit's must
    held = new Map();
    preparedOf.set(conn, held);
  }
  const found = held.get(sql);
  if (found) {
    held.delete(sql);
    held.set(sql, found);
    return found;
  }
  const cache = held;
  // A statement that cannot be prepared reports it to each call (and is not kept).
  const statement = conn.prepare(sql, (error: Error | null) => {
    if (error && cache.get(sql) === statement) cache.delete(sql);
  });
  held.set(sql, statement);
  if (held.size > MAX_PREPARED) {
    const [oldest, old] = held.entries().next().value as [string, sqlite3.Statement];
    held.delete(oldest);
    old.finalize();
  }
  return statement;
}

interface SqliteClient {
  config?: { client?: unknown };
  acquireConnection(): Promise<sqlite3.Database>;
  releaseConnection(conn: sqlite3.Database): Promise<unknown>;
}

/** knex's client when it is node-sqlite3's, else null. */
function sqliteClient(knex: Knex): SqliteClient | null {
  const client = knex.client as SqliteClient;
  return client.config?.client === 'sqlite3' ? client : null;
}

/** The rows of one statement on `conn`, mirrored on knex's `query` event while something listens. */
function allOn(knex: Knex, conn: sqlite3.Database, { sql, bindings }: Statement): Promise<Rows> {
  if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', sql, bindings });
  return new Promise((resolve, reject) => {
    prepared(conn, sql).all(bindings, (error: Error | null, rows: Rows) => (error ? reject(error) : resolve(rows ?? [])));
  });
}

/**
 * Read statements on knex's pooled SQLite connections, each bounded by `timeoutMs` (interrupted past it, failing
 * as knex's own query timeout does); null when knex's client is not node-sqlite3.
 */
export function sqliteReads(knex: Knex, timeoutMs: number): Reads | null {
  const client = sqliteClient(knex);
  if (!client) return null;
  return {
    async all(statement) {
      const conn = await client.acquireConnection();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        conn.interrupt();
      }, timeoutMs);
      try {
        return await allOn(knex, conn, statement);
      } catch (error) {
        if (timedOut) throw new knexModule.KnexTimeoutError(`Defined query timeout of ${timeoutMs}ms exceeded when running query.`);
        throw error;
      } finally {
        clearTimeout(timer);
        await client.releaseConnection(conn);
      }
    },
  };
}

/** Runs a commit's statements on knex's SQLite connection; null when knex's client is not node-sqlite3. */
export function sqliteCommits(knex: Knex): ((writes: CommitStatements) => Promise<void>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;

  return async (writes) => {
    const conn = await client.acquireConnection();
    const run = (statement: Statement) => allOn(knex, conn, statement);
    // Every statement of a round trip is sent before any is waited for; each one's failure is seen after all
    // of them have settled, so nothing of the round trip runs outside the transaction or after its rollback.
    const together = async (statements: readonly Statement[]): Promise<Rows[]> => {
      const settled = await Promise.allSettled(statements.map(run));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((s) => (s as PromiseFulfilledResult<Rows>).value);
    };
    try {
      // A deferred begin: the first insert takes the write lock, waiting for it up to busy_timeout.
      const [, ...first] = await together([{ sql: 'begin', bindings: [] }, ...writes.events, ...writes.counters.first]);
      await together([...writes.counters.rest(first.slice(writes.events.length)), ...writes.usage]);
      await run({ sql: 'commit', bindings: [] });
    } catch (error) {
      // Whatever ran is undone (a failed begin leaves nothing to undo: the rollback fails, ignored).
      await run({ sql: 'rollback', bindings: [] }).catch(() => undefined);
      throw error;
    } finally {
      await client.releaseConnection(conn);
    }
  };
}
