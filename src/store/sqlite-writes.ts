// The event writer's commit path on an embedded SQLite file (issue 12): one better-sqlite3 connection of
// its own, prepared statements run synchronously inside one BEGIN IMMEDIATE transaction per group commit.
// Through knex and node-sqlite3 the same commit cost about 80 µs of CPU per event (a promise, a thread-pool
// hop and a statement parse per query); here each statement is prepared once. PostgreSQL keeps knex.
//
// Synchronous is safe because a commit is bounded (at most MAX_ROWS_PER_COMMIT events, each a handful of
// primary-key upserts) and never waits for a lock on the event loop: the connection's busy timeout is 0,
// and a commit that finds the write lock taken (knex's connection in a transaction: retention, project
// lists, migrations, a second process) is tried again after a short pause, asynchronously, until
// BUSY_TIMEOUT_MS has passed (then the callers get SQLITE_BUSY: an outage, 503). Waiting for the lock
// synchronously could deadlock: a knex transaction holding it needs the event loop to finish.
//
// Checkpoints: not in this connection's commits (they would copy and fsync on the event loop), but in a
// worker thread started with it (sqlite-checkpoints.ts), as node-sqlite3 ran them on its thread pool.
//
// Each statement is mirrored on knex's `query` event while something listens to it, so every statement
// of the store stays observable in one place (debugging, tests counting statements).
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { EventRow } from './event-writer.js';
import { type Checkpoints, startCheckpoints } from './sqlite-checkpoints.js';
import type { VelocityCache } from './velocity-cache.js';
import { aggregate, TOTAL_BUCKET, valuesList } from './velocity-counters.js';

/** How long a commit keeps trying to take the write lock: PRAGMA busy_timeout of knex's connection. */
export const BUSY_TIMEOUT_MS = 5_000;
/** Rows per INSERT into events, as through knex (event-writer.ts). */
const ROWS_PER_STATEMENT = 500;
/** INSERT statements kept prepared, one per row count (commits repeat a few sizes); past it the oldest goes. */
const MAX_PREPARED_INSERTS = 64;

export const EVENT_COLUMNS = [
  'project_id',
  'endpoint',
  'email',
  'email_lower',
  'base_email',
  'domain',
  'ipv4',
  'ipv6',
  'device',
  'action',
  'risk_score',
  'policy_revision',
  'recorded_facts',
  'created_at',
] as const satisfies ReadonlyArray<keyof EventRow>;

const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'cache_size = -32768', 'wal_autocheckpoint = 0'];

const ADDRESS_NEW_SQL =
  'insert into velocity_addresses (project_id, kind, subject, address, last_seen) values (?, ?, ?, ?, ?) on conflict (project_id, kind, subject, address) do nothing returning 1 as added';
const ADDRESS_SEEN_SQL = 'update velocity_addresses set last_seen = ? where project_id = ? and kind = ? and subject = ? and address = ? and last_seen < ?';
const COUNT_SQL = `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses) values (?, ?, ?, ?, ?, ?)
  on conflict (project_id, kind, subject, bucket) do update set
    validations = velocity_counts.validations + excluded.validations,
    addresses = velocity_counts.addresses + excluded.addresses`;

export interface SqliteWrites {
  /** Commits the rows and their velocity counters in one transaction, or nothing. */
  insert(rows: readonly EventRow[]): Promise<void>;
  /** This connection's PRAGMA data_version: it changes when any other connection commits. */
  dataVersion(): number;
  close(): Promise<void>;
}

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown })?.code ?? ''));

/** `cache`: velocity reads kept in memory, told what each commit added (velocity-cache.ts). */
export function openSqliteWrites(filename: string, knex: Knex, cache: VelocityCache | null = null): SqliteWrites {
  let db: Database.Database | null = null;
  let commit: ((rows: readonly EventRow[]) => void) | null = null;
  let version: Database.Statement | null = null;
  let closed = false;
  let checkpoints: Checkpoints | null = null;
  const inserts = new Map<number, Database.Statement>();

  const observed = (sql: string, bindings: readonly unknown[]) => {
    if (knex.listenerCount('query') > 0) knex.emit('query', { method: 'raw', sql, bindings });
  };

  function open(): (rows: readonly EventRow[]) => void {
    // Opened on first use: by then migrations have created the file and its tables.
    const conn = new Database(filename, { fileMustExist: true, timeout: 0 });
    for (const pragma of PRAGMAS) conn.pragma(pragma);
    db = conn;
    checkpoints = startCheckpoints(filename);
    version = conn.prepare('pragma data_version').pluck();
    const addressNew = conn.prepare(ADDRESS_NEW_SQL);
    const addressSeen = conn.prepare(ADDRESS_SEEN_SQL);
    const count = conn.prepare(COUNT_SQL);
    const insertOf = (n: number) => {
      let stmt = inserts.get(n);
      if (!stmt) {
        stmt = conn.prepare(`insert into events (${EVENT_COLUMNS.join(', ')}) values ${valuesList(n, EVENT_COLUMNS.length)}`);
        if (inserts.size >= MAX_PREPARED_INSERTS) inserts.delete(inserts.keys().next().value as number);
        inserts.set(n, stmt);
      }
      return stmt;
    };

    const write = (rows: readonly EventRow[]) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
        const bindings: unknown[] = [];
        for (const row of chunk) for (const column of EVENT_COLUMNS) bindings.push(row[column]);
        const stmt = insertOf(chunk.length);
        stmt.run(bindings);
        observed(stmt.source, bindings);
      }
      const { counts, addresses } = aggregate(rows);
      // A new address row adds one to its subject's distinct count (velocity-counters.ts, writeCounters).
      const totals = new Map<string, (typeof counts)[number]>();
      for (const c of counts) if (c.bucket === TOTAL_BUCKET) totals.set(`${c.project_id}\u0000${c.kind}\u0000${c.subject}`, c);
      for (const a of addresses) {
        const added = addressNew.get(a.project_id, a.kind, a.subject, a.address, a.last_seen);
        observed(ADDRESS_NEW_SQL, []);
        if (added) {
          const total = totals.get(`${a.project_id}\u0000${a.kind}\u0000${a.subject}`);
          if (total) total.addresses += 1;
        } else {
          addressSeen.run(a.last_seen, a.project_id, a.kind, a.subject, a.address, a.last_seen);
          observed(ADDRESS_SEEN_SQL, []);
        }
      }
      for (const c of counts) {
        count.run(c.project_id, c.kind, c.subject, c.bucket, c.validations, c.addresses);
        observed(COUNT_SQL, []);
      }
      return { counts, addresses };
    };
    const transaction = conn.transaction(write);
    return (rows) => {
      const added = transaction.immediate(rows);
      cache?.apply(added.counts, added.addresses); // committed: the cache follows
    };
  }

  return {
    async insert(rows) {
      if (closed) throw new Error('the event store is closed');
      commit ??= open();
      const deadline = Date.now() + BUSY_TIMEOUT_MS;
      for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
        try {
          commit(rows);
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() + pause > deadline) throw error;
        }
        await sleep(pause);
      }
    },
    dataVersion() {
      if (closed) throw new Error('the event store is closed');
      commit ??= open();
      return (version as Database.Statement).get() as number;
    },
    async close() {
      closed = true;
      await checkpoints?.stop();
      checkpoints = null;
      inserts.clear();
      db?.close();
      db = null;
      commit = null;
      version = null;
    },
  };
}
