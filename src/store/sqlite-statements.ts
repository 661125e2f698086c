// An embedded SQLite file's hot statements, on the connections of knex's pools (database.ts) but not one
// knex query at a time: prepared once per text and kept (docs/decisions/0065).
// - The group commit (event-writer.ts), as one script in one round trip to libuv's pool (commitScript),
//   where a knex query per statement took seven round trips, each waiting for the event loop's turn.
//   node-sqlite3 runs a connection's prepared statements as separate works in no set order, and `exec`
//   takes no bindings: the script holds its values as literals (literal()).
// - The request path's reads (events.ts's Reads: velocity, intelligence's history), each bounded by the read
//   timeout, past which it is interrupted.
// Statements are mirrored on knex's `query` event while something listens, so every statement of the store
// stays observable in one place.
import knexModule, { type Knex } from 'knex';
import type sqlite3 from 'sqlite3';
import type { CommitStatements } from './event-writer.js';
import { type AddressRow, aggregate, type CountRow, chunksOf, type Statement, seenAddressesStatement, TOTAL_BUCKET } from './velocity-counters.js';
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

/** A value as an SQLite literal: text quoted (a quote doubled; text holding U+0000 as hex cast to text), numbers as written. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a number SQLite can store: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'bigint') return value.toString();
  const text = String(value);
  if (text.includes('\u0000')) return `cast(x'${Buffer.from(text, 'utf8').toString('hex')}' as text)`;
  return `'${text.replaceAll("'", "''")}'`;
}

/** `statement` with each `?` replaced by its binding as a literal (the store's statements hold no other `?`). */
function inlined({ sql, bindings }: Statement): string {
  let i = 0;
  return sql.replace(/\?/g, () => literal(bindings[i++]));
}

/**
 * A commit as one script for `exec`: one round trip to libuv's pool. Without RETURNING, a subject's new
 * addresses are counted in SQL before its address rows are written (the addresses of the commit less those
 * already stored, read by primary key), under the write lock the first insert took.
 */
function commitScript(writes: CommitStatements): string {
  const { counts, addresses } = aggregate(writes.rows);
  const bySubject = new Map<string, AddressRow[]>();
  for (const a of addresses) {
    const key = `${a.project_id}\u0000${a.kind}\u0000${a.subject}`;
    const list = bySubject.get(key);
    if (list) list.push(a);
    else bySubject.set(key, [a]);
  }
  const distinctOf = (c: CountRow): string => {
    const list = c.bucket === TOTAL_BUCKET ? bySubject.get(`${c.project_id}\u0000${c.kind}\u0000${c.subject}`) : undefined;
    if (!list) return '0';
    return `${list.length} - (select count(*) from velocity_addresses where project_id = ${literal(c.project_id)} and kind = ${literal(c.kind)} and subject = ${literal(c.subject)} and address in (${list.map((a) => literal(a.address)).join(', ')}))`;
  };
  const script = ['begin', ...writes.events.map(inlined)];
  for (const chunk of chunksOf(counts)) {
    const values = chunk.map((c) => `(${[c.project_id, c.kind, c.subject, c.bucket, c.validations].map(literal).join(', ')}, ${distinctOf(c)})`);
    script.push(`insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses) values ${values.join(', ')}
       on conflict (project_id, kind, subject, bucket) do update set
         validations = velocity_counts.validations + excluded.validations,
         addresses = velocity_counts.addresses + excluded.addresses`);
  }
  for (const chunk of chunksOf(addresses)) script.push(inlined(seenAddressesStatement(chunk)));
  script.push(...writes.usage.map(inlined), 'commit');
  return script.join(';\n');
}

/**
 * Runs a commit on knex's SQLite connection as one script (commitScript), rolled back when a statement of it
 * fails; null when knex's client is not node-sqlite3. The velocity cache then works the distinct counts out
 * itself (VelocityCache.apply's `derive`).
 */
export function sqliteCommits(knex: Knex): ((writes: CommitStatements) => Promise<void>) | null {
  const client = sqliteClient(knex);
  if (!client) return null;

  return async (writes) => {
    const conn = await client.acquireConnection();
    if (knex.listenerCount('query') > 0) for (const statement of [...writes.events, ...writes.usage]) knex.emit('query', { method: 'raw', ...statement });
    const exec = (sql: string) => new Promise<void>((resolve, reject) => conn.exec(sql, (error: Error | null) => (error ? reject(error) : resolve())));
    try {
      await exec(commitScript(writes));
    } catch (error) {
      // A failed statement leaves the transaction open (a failed begin leaves none: the rollback fails, ignored).
      await exec('rollback').catch(() => undefined);
      throw error;
    } finally {
      await client.releaseConnection(conn);
    }
  };
}
