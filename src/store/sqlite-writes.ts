// The event writer's commit on an embedded SQLite file (issue 12): prepared statements run synchronously
// inside one BEGIN IMMEDIATE transaction per group commit, on a better-sqlite3 connection of the store
// thread (sqlite-thread.ts), never on the event loop. Through knex and node-sqlite3 the same commit cost
// about 80 µs of CPU per event (a promise, a thread-pool hop and a statement parse per query); here each
// statement is prepared once. PostgreSQL keeps knex.
import type Database from 'better-sqlite3';
import type { EventRow } from './event-writer.js';
import { type AddressRow, aggregate, type CountRow, TOTAL_BUCKET, valuesList } from './velocity-counters.js';

/**
 * How long a commit waits for the write lock (knex's connection in a transaction: retention, project
 * lists, migrations; a second process): the store thread's busy_timeout, as knex's connection has.
 */
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

/**
 * Rows travel as one flat list of their columns' values, EVENT_COLUMNS order, row after row: the structured
 * clone of a message copies a list of plain values faster than as many objects, each with its keys.
 */
export function flatRows(rows: readonly EventRow[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const column of EVENT_COLUMNS) values.push(row[column]);
  return values;
}

/** The rows of flatRows() again. */
export function rowsOfFlat(values: readonly unknown[]): EventRow[] {
  const rows: EventRow[] = [];
  for (let at = 0; at < values.length; at += EVENT_COLUMNS.length) {
    const row: Record<string, unknown> = {};
    EVENT_COLUMNS.forEach((column, i) => {
      row[column] = values[at + i];
    });
    rows.push(row as unknown as EventRow);
  }
  return rows;
}

/** The store thread's connection: WAL beside knex's, checkpoints left to sqlite-checkpoints.ts. */
export const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'cache_size = -8192', 'wal_autocheckpoint = 0'];

const ADDRESS_NEW_SQL =
  'insert into velocity_addresses (project_id, kind, subject, address, last_seen) values (?, ?, ?, ?, ?) on conflict (project_id, kind, subject, address) do nothing returning 1 as added';
const ADDRESS_SEEN_SQL = 'update velocity_addresses set last_seen = ? where project_id = ? and kind = ? and subject = ? and address = ? and last_seen < ?';
const COUNT_SQL = `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses) values (?, ?, ?, ?, ?, ?)
  on conflict (project_id, kind, subject, bucket) do update set
    validations = velocity_counts.validations + excluded.validations,
    addresses = velocity_counts.addresses + excluded.addresses`;

/** A statement a commit ran, for whoever watches every statement of the store (knex's `query` event). */
export interface RanStatement {
  sql: string;
  bindings: readonly unknown[];
}

/** What one commit added to the counters (aggregate() of velocity-counters.ts, distinct counts included). */
export interface Committed {
  counts: CountRow[];
  addresses: AddressRow[];
}

/**
 * The commit of a group of events on `conn`: the rows and their velocity counters in one transaction, or
 * nothing. `ran` hears each statement when given.
 */
export function prepareEventCommit(conn: Database.Database): (rows: readonly EventRow[], ran?: (s: RanStatement) => void) => Committed {
  const inserts = new Map<number, Database.Statement>();
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

  const write = (rows: readonly EventRow[], ran?: (s: RanStatement) => void): Committed => {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const bindings: unknown[] = [];
      for (const row of chunk) for (const column of EVENT_COLUMNS) bindings.push(row[column]);
      const stmt = insertOf(chunk.length);
      stmt.run(bindings);
      ran?.({ sql: stmt.source, bindings });
    }
    const { counts, addresses } = aggregate(rows);
    // A new address row adds one to its subject's distinct count (velocity-counters.ts, writeCounters).
    const totals = new Map<string, CountRow>();
    for (const c of counts) if (c.bucket === TOTAL_BUCKET) totals.set(`${c.project_id}\u0000${c.kind}\u0000${c.subject}`, c);
    for (const a of addresses) {
      const added = addressNew.get(a.project_id, a.kind, a.subject, a.address, a.last_seen);
      ran?.({ sql: ADDRESS_NEW_SQL, bindings: [] });
      if (added) {
        const total = totals.get(`${a.project_id}\u0000${a.kind}\u0000${a.subject}`);
        if (total) total.addresses += 1;
      } else {
        addressSeen.run(a.last_seen, a.project_id, a.kind, a.subject, a.address, a.last_seen);
        ran?.({ sql: ADDRESS_SEEN_SQL, bindings: [] });
      }
    }
    for (const c of counts) {
      count.run(c.project_id, c.kind, c.subject, c.bucket, c.validations, c.addresses);
      ran?.({ sql: COUNT_SQL, bindings: [] });
    }
    return { counts, addresses };
  };
  const transaction = conn.transaction(write);
  return (rows, ran) => transaction.immediate(rows, ran);
}
