// usage: calls per project per calendar month (UTC), for quotas: the quota's source of truth (service/quota.ts).
// A served call's count is added in the transaction that commits its event (event-writer.ts), so the table
// always agrees with the events: a call whose event did not commit is not counted, and a kill -9 loses no
// count. Sandbox calls are not counted (their events say so: EventRow.counted).
import type { Knex } from 'knex';
import type { EventRow } from './commit-statements.js';
import { toNumber } from './sql-values.js';
import { valuesList } from './velocity-counters.js';

export interface Usage {
  /** The project's count for `month` ('YYYY-MM'); 0 when nothing was counted. */
  get(projectId: string, month: string): Promise<number>;
}

/** What a commit adds to the usage table. */
export interface UsageRow {
  project_id: string;
  month: string;
  count: number;
}

/** 'YYYY-MM' of a time, in UTC. */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** The counted rows' calls per project and month, in key order (two commits lock their rows in the same order). */
export function usageOf(rows: readonly EventRow[]): UsageRow[] {
  const counts = new Map<string, UsageRow>();
  for (const row of rows) {
    if (!row.counted) continue;
    const month = monthOf(row.created_at);
    const key = `${row.project_id}\u0000${month}`;
    const held = counts.get(key);
    if (held) held.count += 1;
    else counts.set(key, { project_id: row.project_id, month, count: 1 });
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** The upsert of `n` usage rows (PostgreSQL and SQLite alike). */
const usageSql = (n: number) =>
  `insert into usage (project_id, month, count) values ${valuesList(n, 3)}
  on conflict (project_id, month) do update set count = usage.count + excluded.count`;

/** The rows as one flat list of values (project_id, month, count, …): the statement's bindings. */
const usageBindings = (rows: readonly UsageRow[]): unknown[] => rows.flatMap((r) => [r.project_id, r.month, r.count]);

/** The statement adding the counted rows' calls, for the transaction committing their events; null when none count. */
export function usageStatement(rows: readonly EventRow[]): { sql: string; bindings: unknown[] } | null {
  const usage = usageOf(rows);
  return usage.length > 0 ? { sql: usageSql(usage.length), bindings: usageBindings(usage) } : null;
}

export function createUsage(knex: Knex): Usage {
  return {
    async get(projectId, month) {
      const row = (await knex('usage').select('count').where({ project_id: projectId, month }).first()) as { count: unknown } | undefined;
      return row ? toNumber(row.count) : 0;
    },
  };
}
