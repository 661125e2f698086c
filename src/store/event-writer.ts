// Group commit for events: rows written together commit in one transaction, and each caller's promise
// settles with the commit that holds its row, so a response is sent only after its event is durable; the
// velocity counters (velocity-counters.ts) and the quota's usage counts (usage.ts) are upserted in the same
// transaction. A turn's rows are one transaction, and one commit runs at a time: the next takes every row
// that queued meanwhile. Rows arrive type-checked (events.ts), but the database may still refuse one
// (PostgreSQL cannot store U+0000 in text, nor an index entry over about 2,700 bytes): a failed commit is
// then retried one event per transaction, so only the refused event's caller sees the error, not
// the other requests (other projects' too) that happened to share its commit.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Knex } from 'knex';
import { eventBatchSize, eventCommitDuration, secondsSince } from '../metrics.js';
import { sqliteCommits } from './sqlite-statements.js';
import { isUnavailable } from './unavailable.js';
import { usageStatement } from './usage.js';
import type { VelocityCache } from './velocity-cache.js';
import { counterWrites, rowsOf, type Statement, valuesList } from './velocity-counters.js';

/**
 * On an embedded file a commit runs on the event loop (better-sqlite3) and costs mostly its own writing of
 * the pages it touched, whatever its rows: the next commit starts at least this long after the last one
 * began, so that under load a commit takes the rows of several turns (docs/decisions/0065).
 */
export const SQLITE_COMMIT_GAP_MS = 2;
/** Rows per commit; later arrivals wait for the next one. */
const MAX_ROWS_PER_COMMIT = 5_000;
/** Rows per INSERT: 500 × 14 bindings stays below both databases' parameter limits (32,766 and 65,535). */
const ROWS_PER_STATEMENT = 500;
/** The events table's columns as the store writes them: the one list of them. */
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

export interface EventRow {
  project_id: string;
  endpoint: string;
  email: string;
  email_lower: string;
  base_email: string;
  domain: string | null;
  ipv4: string | null;
  ipv6: string | null;
  device: string | null;
  action: string;
  risk_score: number | null;
  policy_revision: string | null;
  /** JSON of the network and history facts the decision read (fact → value), for replay. */
  recorded_facts: string | null;
  created_at: number;
  /** A served call of a non-sandbox project: it counts toward the project's monthly usage (not a column of events). */
  counted?: boolean;
}

export interface EventWriter {
  /** Resolves once the row is committed; rejects when its commit fails. */
  write(row: EventRow): Promise<void>;
  /** Waits until every write() made so far has settled. */
  flush(): Promise<void>;
}

/** A commit's statements, in the order they run: the events, the counters (velocity-counters.ts), the usage counts. */
export interface CommitStatements {
  rows: readonly EventRow[];
  events: Statement[];
  counters: ReturnType<typeof counterWrites>;
  usage: Statement[];
}

/** Plain multi-row VALUES, in statements of at most ROWS_PER_STATEMENT rows (knex would write SQLite's as UNION ALL selects). */
function commitStatements(rows: readonly EventRow[]): CommitStatements {
  const events: Statement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const bindings: unknown[] = [];
    for (const row of chunk) for (const column of EVENT_COLUMNS) bindings.push(row[column]);
    events.push({ sql: `insert into events (${EVENT_COLUMNS.join(', ')}) values ${valuesList(chunk.length, EVENT_COLUMNS.length)}`, bindings });
  }
  const usage = usageStatement(rows);
  return { rows, events, counters: counterWrites(rows), usage: usage ? [usage] : [] };
}

interface Pending {
  row: EventRow;
  resolve(): void;
  reject(error: unknown): void;
}

/** `cache`: an embedded file's velocity cache, kept up to date with each commit's increments. */
export function createEventWriter(knex: Knex, cache: VelocityCache | null = null): EventWriter {
  const sqlite = sqliteCommits(knex);
  const queue: Pending[] = [];
  let scheduled = false;
  let committing: Promise<void> | null = null;
  const gapMs = sqlite ? SQLITE_COMMIT_GAP_MS : 0;
  let lastStarted = Number.NEGATIVE_INFINITY;

  // One commit, timed and counted for GET /metrics.
  async function insert(rows: EventRow[]): Promise<void> {
    const started = performance.now();
    lastStarted = started;
    eventBatchSize.observe(rows.length);
    try {
      await insertRows(rows);
      eventCommitDuration.observe({ outcome: 'committed' }, secondsSince(started));
    } catch (error) {
      eventCommitDuration.observe({ outcome: 'failed' }, secondsSince(started));
      throw error;
    }
  }

  // The event rows, the velocity counters and the usage counts they add commit together, or not at all.
  async function insertRows(rows: EventRow[]): Promise<void> {
    const writes = commitStatements(rows);
    const commit = cache?.committing(writes.counters.increments().counts);
    try {
      if (sqlite) await sqlite(writes);
      else await viaKnex(writes);
    } catch (error) {
      if (commit !== undefined) cache?.failed(commit);
      throw error;
    }
    if (commit !== undefined) {
      const { counts, addresses } = writes.counters.increments();
      cache?.apply(commit, counts, addresses);
    }
  }

  async function viaKnex(writes: CommitStatements): Promise<void> {
    await knex.transaction(async (trx) => {
      const run = async ({ sql, bindings }: Statement) => rowsOf(await trx.raw(sql, bindings as Knex.RawBinding[]));
      for (const statement of writes.events) await run(statement);
      const inserted: Array<Array<Record<string, unknown>>> = [];
      for (const statement of writes.counters.first) inserted.push(await run(statement));
      for (const statement of [...writes.counters.rest(inserted), ...writes.usage]) await run(statement);
    });
  }

  async function commitQueue(): Promise<void> {
    while (queue.length > 0) await commitBatch(queue.splice(0, MAX_ROWS_PER_COMMIT));
    committing = null;
  }

  async function commitBatch(batch: readonly Pending[]): Promise<void> {
    try {
      await insert(batch.map((p) => p.row));
      for (const p of batch) p.resolve();
    } catch (error) {
      // Unreachable or out of space: retrying event by event would only fail each one again, slowly.
      if (batch.length === 1 || isUnavailable(error)) for (const p of batch) p.reject(error);
      else await oneByOne(batch);
    }
  }

  // Each event alone, in order, each with its counters: the same rows commit as in the batch except
  // the refused ones, whose callers alone get the error.
  async function oneByOne(batch: readonly Pending[]): Promise<void> {
    for (const p of batch) {
      try {
        await insert([p.row]);
        p.resolve();
      } catch (error) {
        p.reject(error);
      }
    }
  }

  function schedule(): void {
    if (scheduled || committing) return;
    scheduled = true;
    const start = () => {
      scheduled = false;
      committing = commitQueue();
    };
    const wait = lastStarted + gapMs - performance.now();
    if (wait > 0) setTimeout(start, wait);
    else setImmediate(start);
  }

  return {
    write(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        schedule();
      });
    },

    async flush() {
      while (queue.length > 0 || scheduled || committing) {
        if (committing) await committing;
        else await nextTurn();
      }
    },
  };
}
