// usage: calls per project per calendar month (UTC), for quotas. Sandbox calls are simply not counted
// by the caller.
import type { Knex } from 'knex';
import { backgroundWrites } from './background-writes.js';
import { toNumber } from './sql-values.js';

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

export function createUsage(knex: Knex): Usage {
  // The quota's flush (service/quota.ts), every second beside the store thread's commits: without holding the
  // event loop while the write lock is taken (background-writes.ts).
  const write = backgroundWrites(knex);
  return {
    async increment(projectId, at = Date.now(), by = 1) {
      const rows = (await write((trx) =>
        trx('usage')
          .insert({ project_id: projectId, month: monthOf(at), count: by })
          .onConflict(['project_id', 'month'])
          .merge({ count: trx.raw('?? + ?', ['usage.count', by]) })
          .returning('count'),
      )) as Array<{ count: unknown }>;
      return toNumber(rows[0]?.count);
    },

    async get(projectId, month) {
      const row = (await knex('usage').select('count').where({ project_id: projectId, month }).first()) as { count: unknown } | undefined;
      return row ? toNumber(row.count) : 0;
    },
  };
}
