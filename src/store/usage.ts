// usage: calls per project per calendar month (UTC), for quotas. Sandbox calls are simply not counted
// by the caller.
import type { Knex } from 'knex';
import { backgroundWrites, nativeStatement } from './background-writes.js';
import { toNumber } from './sql-values.js';
import type { SqliteThread } from './sqlite-thread.js';

export interface Usage {
  /** Adds `by` to the project's count for the month holding `at` (ms); returns the new count. */
  increment(projectId: string, at?: number, by?: number): Promise<number>;
  /** The project's count for `month` ('YYYY-MM'); 0 when nothing was counted. */
  get(projectId: string, month: string): Promise<number>;
}

/** 'YYYY-MM' of a time, in UTC. */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/**
 * `thread`: an embedded file's store thread. The quota's flush (service/quota.ts) writes every second under load;
 * through knex's connection each write changed the thread's data_version, which empties both velocity caches
 * (velocity-cache.ts, the event loop's replica): with a non-sandbox project under load most velocity reads then
 * went to the thread (7,885 of 12,837 in 8 s on a slow machine, against 25 of 11,045 for a sandbox project, whose
 * calls are not counted). On the thread's own connection the caches stay.
 */
export function createUsage(knex: Knex, thread: Pick<SqliteThread, 'write'> | null = null): Usage {
  // Elsewhere beside the store thread's commits: without holding the event loop while the write lock is taken
  // (background-writes.ts).
  const write = backgroundWrites(knex);
  const upsert = (q: Knex | Knex.Transaction, projectId: string, at: number, by: number) =>
    q('usage')
      .insert({ project_id: projectId, month: monthOf(at), count: by })
      .onConflict(['project_id', 'month'])
      .merge({ count: q.raw('?? + ?', ['usage.count', by]) })
      .returning('count');
  return {
    async increment(projectId, at = Date.now(), by = 1) {
      let rows: Array<{ count?: unknown }>;
      if (thread) {
        rows = (await thread.write([nativeStatement(upsert(knex, projectId, at, by))]))[0] ?? [];
      } else rows = (await write((trx) => upsert(trx, projectId, at, by))) as Array<{ count: unknown }>;
      return toNumber(rows[0]?.count);
    },

    async get(projectId, month) {
      const row = (await knex('usage').select('count').where({ project_id: projectId, month }).first()) as { count: unknown } | undefined;
      return row ? toNumber(row.count) : 0;
    },
  };
}
