// Group commit for events: rows written together commit in one transaction, and each caller's promise
// settles with the commit that holds its row, so a response is sent only after its event is durable; the
// velocity counters (velocity-counters.ts) and the quota's usage counts (usage.ts) are upserted in the same
// transaction. Through knex a turn's rows are
// one transaction. On an embedded SQLite file the commits go to the store thread (sqlite-thread.ts), a turn's
// rows in groups of ROWS_SENT_AT_ONCE as they are written and the rest at the turn's end, and each of its
// commits takes every group waiting on it. Rows arrive type-checked (events.ts), but the database may still
// refuse one (PostgreSQL cannot store U+0000 in text, nor an index entry over about 2,700 bytes): a failed
// commit is then retried one event per transaction, so only the refused event's caller sees the error, not
// the other requests (other projects' too) that happened to share its commit.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Knex } from 'knex';
import { eventBatchSize, eventCommitDuration, secondsSince } from '../metrics.js';
import { isUnavailable } from './unavailable.js';
import { writeUsage } from './usage.js';
import { valuesList, writeCounters } from './velocity-counters.js';

/** Rows per commit; later arrivals wait for the next one. */
const MAX_ROWS_PER_COMMIT = 5_000;
/**
 * On the store thread, a turn's rows go to it in groups of this many as they are written, the rest at the
 * turn's end: the thread commits the first ones while the event loop decides the others. Under verify's
 * load a turn decided about 15 requests, 3-4 ms of the loop's work, and each row waited for the turn's end to
 * be sent; the loop then slept 6-13 % of the time, every request waiting for a commit that had only just
 * begun. In groups of 8 it slept 1.2-1.8 %, and verify answered ×1.25 as many requests a second side by side,
 * with commits of 7 rows on average instead of 15 (bench/README.md, the twentieth pass). A turn of fewer rows,
 * as at 1,000 verifies a second, goes as before: whole, at its end.
 */
export const ROWS_SENT_AT_ONCE = 8;
/** Rows per INSERT: 500 × 14 bindings stays below both databases' parameter limits (32,766 and 65,535). */
const ROWS_PER_STATEMENT = 500;
const COLUMNS = [
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

/** A commit path other than knex's: the rows, their velocity counters and their usage in one transaction, or nothing. */
export interface EventCommits {
  insert(rows: readonly EventRow[]): Promise<void>;
  /** Told after velocity history changed through knex (retention): what it remembers of it may be out of date. */
  forget?(): void;
}

export interface EventWriter {
  /** Resolves once the row is committed; rejects when its commit fails. */
  write(row: EventRow): Promise<void>;
  /** Waits until every write() made so far has settled. */
  flush(): Promise<void>;
}

interface Pending {
  row: EventRow;
  resolve(): void;
  reject(error: unknown): void;
}

/** `sqlite`: the embedded file's own commit path; without it every commit goes through knex. */
export function createEventWriter(knex: Knex, sqlite: EventCommits | null = null): EventWriter {
  const queue: Pending[] = [];
  let scheduled = false;
  let committing: Promise<void> | null = null;

  // One commit, timed and counted for GET /metrics.
  async function insert(rows: EventRow[]): Promise<void> {
    const started = performance.now();
    if (!sqlite) eventBatchSize.observe(rows.length); // the store thread's commits are counted as it makes them (sqlite-thread.ts)
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
    if (sqlite) return sqlite.insert(rows);
    await knex.transaction(async (trx) => {
      // Plain multi-row VALUES (knex would write SQLite's as UNION ALL selects, slower to build and run).
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
        const bindings: unknown[] = [];
        for (const row of chunk) for (const column of COLUMNS) bindings.push(row[column]);
        await trx.raw(`insert into events (${COLUMNS.join(', ')}) values ${valuesList(chunk.length, COLUMNS.length)}`, bindings as Knex.RawBinding[]);
      }
      await writeCounters(trx, rows);
      await writeUsage(trx, rows);
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

  // Batches sent to the store thread and not yet answered.
  const sent = new Set<Promise<void>>();

  function schedule(): void {
    // Through knex one commit runs at a time, and the next takes what queued meanwhile. The store thread
    // queues what it is sent and commits every batch waiting behind its current commit as one (sqlite-thread-
    // worker.ts), so a turn's rows (those not sent already, ROWS_SENT_AT_ONCE) go at its end: they wait for the
    // thread's commit in progress, not for the event loop to take its answer first (a turn later, under load).
    if (scheduled || (committing && !sqlite)) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (!sqlite) {
        committing = commitQueue();
        return;
      }
      send();
    });
  }

  /** The store thread gets what is queued now; it commits it behind (or with) what it was sent before. */
  function send(): void {
    while (queue.length > 0) {
      const batch = commitBatch(queue.splice(0, MAX_ROWS_PER_COMMIT)).finally(() => sent.delete(batch));
      sent.add(batch);
    }
  }

  return {
    write(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (sqlite && queue.length >= ROWS_SENT_AT_ONCE) send();
        else schedule();
      });
    },

    async flush() {
      while (queue.length > 0 || scheduled || committing || sent.size > 0) {
        if (committing) await committing;
        else if (sent.size > 0) await Promise.all(sent);
        else await nextTurn();
      }
    },
  };
}
