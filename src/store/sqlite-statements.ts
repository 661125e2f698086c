// An embedded SQLite file's hot statements, on the connections of knex's pools (database.ts) but not one
// knex query at a time: prepared once per text and kept (docs/decisions/0065).
// - The group commit (event-writer.ts), in four round trips to libuv's pool (begin; the events and the new
//   address rows; the other counters and the usage counts, built from what the new address rows returned;
//   commit), where a knex query per statement took seven. The statements of a round trip are independent:
//   node-sqlite3 runs a connection's prepared statements as separate works, in no set order. The transaction
//   and its statements are those PostgreSQL runs through knex (CommitStatements).
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

const preparedOf = new WeakMap<sqlite3.Database, Map<string, Promise<sqlite3.Statement>>>();

/**
 * `sql` prepared on `conn` (kept). A round trip's statements are prepared before any is run: a statement
 * that failed to prepare never answers a call.
 */
function prepare(conn: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
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
  const cache = held;
  const statement = new Promise<sqlite3.Statement>((resolve, reject) => {
    const made: sqlite3.Statement = conn.prepare(sql, (error: Error | null) => {
      if (!error) return resolve(made);
      if (cache.get(sql) === statement) cache.delete(sql);
      reject(error);
    });
  });
  statement.catch(() => undefined); // its callers see the error
  held.set(sql, statement);
  if (held.size > MAX_PREPARED) {
    const [oldest, old] = held.entries().next().value as [string, Promise<sqlite3.Statement>];
    held.delete(oldest);
    old.then((s) => s.finalize()).catch(() => undefined);
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

/**
 * The statements run on `conn`, each one's outcome (all sent before any answers, run in no set order);
 * rejects, running none, when one cannot be prepared. Mirrored on knex's `query` and `query-response` events while something
 * listens.
 */
async function runOn(knex: Knex, conn: sqlite3.Database, statements: readonly Statement[]): Promise<Array<PromiseSettledResult<Rows>>> {
  const ready = await Promise.all(statements.map(({ sql }) => prepare(conn, sql)));
  return Promise.allSettled(
    statements.map((statement, i) => {
      if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', ...statement });
      return new Promise<Rows>((resolve, reject) => {
        (ready[i] as sqlite3.Statement).all(statement.bindings, (error: Error | null, rows: Rows) => {
          if (error) return reject(error);
          if (knex.listenerCount('query-response') > 0) knex.emit('query-response', rows ?? [], { method: 'raw', ...statement });
          resolve(rows ?? []);
        });
      });
    }),
  );
}

/** The rows of each statement, in the order given; the first failure (after every statement has settled) rejects. */
async function allOn(knex: Knex, conn: sqlite3.Database, statements: readonly Statement[]): Promise<Rows[]> {
  const settled = await runOn(knex, conn, statements);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<Rows>).value);
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
        return (await allOn(knex, conn, [statement]))[0] as Rows;
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

/** The writer connection's PRAGMA data_version (velocity-cache.ts), unobserved; null when knex's client is not node-sqlite3. */
export function sqliteDataVersion(knex: Knex): (() => Promise<number>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;
  const quiet = { listenerCount: () => 0 } as unknown as Knex;
  return async () => {
    const conn = await client.acquireConnection();
    try {
      const [rows] = await allOn(quiet, conn, [{ sql: 'pragma data_version', bindings: [] }]);
      return Number(rows?.[0]?.data_version);
    } finally {
      await client.releaseConnection(conn);
    }
  };
}

/** Runs a commit's statements on knex's SQLite connection; null when knex's client is not node-sqlite3. */
export function sqliteCommits(knex: Knex): ((writes: CommitStatements) => Promise<void>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;

  return async (writes) => {
    const conn = await client.acquireConnection();
    // Each round trip is waited for whole, so nothing runs outside the transaction or after its rollback.
    const together = (statements: readonly Statement[]) => allOn(knex, conn, statements);
    try {
      // A deferred begin: the first insert takes the write lock, waiting for it up to busy_timeout.
      await together([{ sql: 'begin', bindings: [] }]);
      const first = await together([...writes.events, ...writes.counters.first]);
      await together([...writes.counters.rest(first.slice(writes.events.length)), ...writes.usage]);
      await together([{ sql: 'commit', bindings: [] }]);
    } catch (error) {
      // Whatever ran is undone (a failed begin leaves nothing to undo: the rollback fails, ignored).
      await together([{ sql: 'rollback', bindings: [] }]).catch(() => undefined);
      throw error;
    } finally {
      await client.releaseConnection(conn);
    }
  };
}
