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
import { type CommitStatements, commitStatements, type EventRow } from './commit-statements.js';
import { observed } from './sqlite-statements.js';
import type { SqliteWriter } from './sqlite-writer.js';
import { isUnavailable } from './unavailable.js';
import type { VelocityCache } from './velocity-cache.js';
import { aggregate, rowsOf, type Statement } from './velocity-counters.js';

/** Rows per commit; later arrivals wait for the next one. */
const MAX_ROWS_PER_COMMIT = 5_000;
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

/**
 * Commits through `sqlite` (an embedded file's writer thread) or else through knex's transaction; `cache`: an
 * embedded file's velocity cache, kept up to date with each commit's increments.
 */
export function createEventWriter(knex: Knex, sqlite: SqliteWriter | null = null, cache: VelocityCache | null = null): EventWriter {
  const queue: Pending[] = [];
  let scheduled = false;
  let committing: Promise<void> | null = null;

  // One commit, timed and counted for GET /metrics.
  async function insert(rows: EventRow[]): Promise<void> {
    const started = performance.now();
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
    // The subjects the commit touches (the thread works out the same rows' counters itself).
    const commit = cache?.committing(aggregate(rows).counts);
    let made: ReturnType<CommitStatements['counters']['increments']>;
    try {
      made = sqlite ? await viaThread(sqlite, rows) : await viaKnex(commitStatements(rows));
    } catch (error) {
      if (commit !== undefined) cache?.failed(commit);
      throw error;
    }
    if (commit !== undefined) cache?.apply(commit, made.counts, made.addresses);
  }

  // Whoever watches every statement of the store (knex's `query` event) sees the thread's too.
  async function viaThread(thread: SqliteWriter, rows: EventRow[]) {
    const observe = knex.listenerCount('query') > 0;
    const { increments, statements } = await thread.commit(rows, observe);
    for (const statement of statements) observed(knex, statement);
    return increments;
  }

  async function viaKnex(writes: CommitStatements) {
    await knex.transaction(async (trx) => {
      const run = async ({ sql, bindings }: Statement) => rowsOf(await trx.raw(sql, bindings as Knex.RawBinding[]));
      for (const statement of writes.events) await run(statement);
      const inserted: Array<Array<Record<string, unknown>>> = [];
      for (const statement of writes.counters.first) inserted.push(await run(statement));
      for (const statement of [...writes.counters.rest(inserted), ...writes.usage]) await run(statement);
    });
    return writes.counters.increments();
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
    setImmediate(start);
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
