// The event writer's commit on an embedded SQLite file (issue 12): the rows, their velocity counters and their
// usage counts (usage.ts); prepared statements run synchronously
// inside one BEGIN IMMEDIATE transaction per group commit, on a better-sqlite3 connection of the store
// thread (sqlite-thread.ts), never on the event loop. Through knex and node-sqlite3 the same commit cost
// about 80 µs of CPU per event (a promise, a thread-pool hop and a statement parse per query); here each
// statement is prepared once. PostgreSQL keeps knex.
import type Database from 'better-sqlite3';
import type { EventRow } from './event-writer.js';
import { mergedUsage, type UsageRow, usageBindings, usageSql } from './usage.js';
import { type AddressRow, aggregate, type CountRow, TOTAL_BUCKET, valuesList } from './velocity-counters.js';

/**
 * How long a commit waits for the write lock (knex's connection in a transaction: retention, project
 * lists, migrations; a second process): the store thread's busy_timeout, as knex's connection has.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/** Rows per INSERT into events, as through knex (event-writer.ts). */
const ROWS_PER_STATEMENT = 500;
/** Statements kept prepared of each kind, one per row count (commits repeat a few sizes); past it the oldest goes. */
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

/**
 * How far the write-ahead log grows before it is started again from its beginning (sqlite-checkpoints.ts).
 * Each restart stops the commits for the store thread's last copy and its fsyncs (0-74 ms on the bench
 * machine of 2026-11-28), and a commit writes 30-60 KB of log per event at 1,000 verifies a second: at
 * 128 MB that was a restart every 2-3 s there, at 512 MB every 8-10 s. The price is disk: the log file
 * stays about this large (WAL_FILE_LIMIT_BYTES).
 */
export const WAL_SIZE_LIMIT_BYTES = 512 * 1024 * 1024;

/**
 * The log file is cut back to this when it starts again (journal_size_limit): above WAL_SIZE_LIMIT_BYTES and
 * a few seconds of growth, so that a restart reuses the file's blocks rather than freeing them (the commit
 * that cut back 60-100 MB took 20-25 ms, discard on), while a log that grew far past it (a reader held it)
 * still shrinks.
 */
export const WAL_FILE_LIMIT_BYTES = 2 * WAL_SIZE_LIMIT_BYTES;

/**
 * The store thread's connection: WAL beside knex's, checkpoints left to sqlite-checkpoints.ts. Its temporary
 * files in memory: a commit's counter statement keeps the pages it changes in a statement journal, which
 * SQLite spills to a temporary file past 64 KiB (a few dozen rows), so each commit wrote it to disk and read
 * nothing back; in memory, 18 -> 10 writes and 130 -> 95 µs of CPU per event after 100,000 events
 * (bench/store-frames.ts). Its statements are bounded (a commit's rows, at most 5,000; reads by index with
 * a limit), so is what it holds.
 */
export const PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'foreign_keys = ON',
  'cache_size = -8192',
  'wal_autocheckpoint = 0',
  'temp_store = MEMORY',
  // When a commit starts the log again from its beginning (after sqlite-checkpoints.ts copied all of it), a
  // file past this is cut back to it.
  `journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`,
];

/** Rows per counter or address statement: 500 × 6 bindings, far below SQLite's limit (32,766). */
const ROWS_PER_COUNTER_STATEMENT = 500;

// Each statement takes many rows (a commit's counters in one statement rather than one per row: a statement
// run costs its binding and its VDBE start whatever its rows), prepared once per row count used.
const eventsSql = (n: number) => `insert into events (${EVENT_COLUMNS.join(', ')}) values ${valuesList(n, EVENT_COLUMNS.length)}`;
const addressesNewSql = (n: number) =>
  `insert into velocity_addresses (project_id, kind, subject, address, last_seen) values ${valuesList(n, 5)}
  on conflict (project_id, kind, subject, address) do nothing returning project_id, kind, subject, address`;
const addressesSeenSql = (n: number) =>
  `insert into velocity_addresses (project_id, kind, subject, address, last_seen) values ${valuesList(n, 5)}
  on conflict (project_id, kind, subject, address) do update set last_seen = excluded.last_seen where excluded.last_seen > velocity_addresses.last_seen`;
const countsSql = (n: number) =>
  `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses) values ${valuesList(n, 6)}
  on conflict (project_id, kind, subject, bucket) do update set
    validations = velocity_counts.validations + excluded.validations,
    addresses = velocity_counts.addresses + excluded.addresses`;

/** A statement a commit ran, for whoever watches every statement of the store (knex's `query` event). */
export interface RanStatement {
  sql: string;
  bindings: readonly unknown[];
}

interface AddressKey {
  project_id: string;
  kind: string;
  subject: string;
  address: string;
}

/** What one commit added to the counters (aggregate() of velocity-counters.ts, distinct counts included). */
export interface Committed {
  counts: CountRow[];
  addresses: AddressRow[];
}

/** A commit of a group of events: the rows, their usage counts (usage.ts, usageOf) and who hears each statement. */
export type EventCommit = (rows: readonly EventRow[], usage: readonly UsageRow[], ran?: (s: RanStatement) => void) => Committed;

/**
 * The commit of a group of events on `conn`: the rows, their velocity counters and their usage counts in one
 * transaction, or nothing. `ran` hears each statement when given.
 */
export function prepareEventCommit(conn: Database.Database): EventCommit {
  /** Statements by kind and row count (commits repeat a few sizes); past MAX_PREPARED_INSERTS of a kind the oldest goes. */
  const prepared = {
    events: new Map<number, Database.Statement>(),
    added: new Map<number, Database.Statement>(),
    seen: new Map<number, Database.Statement>(),
    counts: new Map<number, Database.Statement>(),
    usage: new Map<number, Database.Statement>(),
  };
  const sqlOf = { events: eventsSql, added: addressesNewSql, seen: addressesSeenSql, counts: countsSql, usage: usageSql };
  const statement = (kind: keyof typeof prepared, n: number) => {
    const held = prepared[kind];
    let stmt = held.get(n);
    if (!stmt) {
      stmt = conn.prepare(sqlOf[kind](n));
      if (held.size >= MAX_PREPARED_INSERTS) held.delete(held.keys().next().value as number);
      held.set(n, stmt);
    }
    return stmt;
  };
  const keyOf = (a: { project_id: string; kind: string; subject: string }) => `${a.project_id}\u0000${a.kind}\u0000${a.subject}`;

  const write = (rows: readonly EventRow[], usage: readonly UsageRow[], ran?: (s: RanStatement) => void): Committed => {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const bindings: unknown[] = [];
      for (const row of chunk) for (const column of EVENT_COLUMNS) bindings.push(row[column]);
      const stmt = statement('events', chunk.length);
      stmt.run(bindings);
      ran?.({ sql: stmt.source, bindings });
    }
    const { counts, addresses } = aggregate(rows);
    // A new address row adds one to its subject's distinct count (velocity-counters.ts, writeCounters).
    const totals = new Map<string, CountRow>();
    for (const c of counts) if (c.bucket === TOTAL_BUCKET) totals.set(keyOf(c), c);
    for (let i = 0; i < addresses.length; i += ROWS_PER_COUNTER_STATEMENT) {
      const chunk = addresses.slice(i, i + ROWS_PER_COUNTER_STATEMENT);
      const bindings: unknown[] = [];
      for (const a of chunk) bindings.push(a.project_id, a.kind, a.subject, a.address, a.last_seen);
      const added = statement('added', chunk.length);
      const inserted = added.all(bindings) as AddressKey[];
      ran?.({ sql: added.source, bindings });
      const isNew = new Set<string>();
      for (const r of inserted) {
        isNew.add(`${keyOf(r)}\u0000${r.address}`);
        const total = totals.get(keyOf(r));
        if (total) total.addresses += 1;
      }
      // The others were seen before: their rows keep the later time.
      const seen = isNew.size === chunk.length ? [] : chunk.filter((a) => !isNew.has(`${keyOf(a)}\u0000${a.address}`));
      if (seen.length > 0) {
        const seenBindings: unknown[] = [];
        for (const a of seen) seenBindings.push(a.project_id, a.kind, a.subject, a.address, a.last_seen);
        const update = statement('seen', seen.length);
        update.run(seenBindings);
        ran?.({ sql: update.source, bindings: seenBindings });
      }
    }
    for (let i = 0; i < counts.length; i += ROWS_PER_COUNTER_STATEMENT) {
      const chunk = counts.slice(i, i + ROWS_PER_COUNTER_STATEMENT);
      const bindings: unknown[] = [];
      for (const c of chunk) bindings.push(c.project_id, c.kind, c.subject, c.bucket, c.validations, c.addresses);
      const upsert = statement('counts', chunk.length);
      upsert.run(bindings);
      ran?.({ sql: upsert.source, bindings });
    }
    const calls = mergedUsage(usage);
    for (let i = 0; i < calls.length; i += ROWS_PER_COUNTER_STATEMENT) {
      const chunk = calls.slice(i, i + ROWS_PER_COUNTER_STATEMENT);
      const bindings = usageBindings(chunk);
      const upsert = statement('usage', chunk.length);
      upsert.run(bindings);
      ran?.({ sql: upsert.source, bindings });
    }
    return { counts, addresses };
  };
  const transaction = conn.transaction(write);
  return (rows, usage, ran) => transaction.immediate(rows, usage, ran);
}
