// The statements behind VelocityReader.byIp, written once as SQL that SQLite and PostgreSQL both run.
// Every branch repeats project_id, so each is answered from its own (project_id, ip, created_at) index
// and a project never reads another's rows. Addresses are told apart by email_lower, the whole address
// lower-cased by the service with Unicode rules (SQLite's lower() folds ASCII letters only), so
// a+1@x.com and a+2@x.com are two accounts. A row written without it (an instance still on the code of
// before migration 0002, during a rolling upgrade) falls back to base_email, which then held the same.
//
// One statement reads the IP's newest rows in index order; the list, the distinct count and the window
// counts are taken from them. Only an IP with more rows than that reads its totals with a second one.
import type { IpVelocity } from '../engine/plugin.js';
import { toNumber } from './sql-values.js';

export interface IpQuery {
  projectId: string;
  ipv4: string | null;
  ipv6: string | null;
  /** Window starts (ms); each gets a count of rows at or after it. */
  since: number[];
  limit: number;
}

export interface Statement {
  sql: string;
  bindings: unknown[];
}

/** The address a row counts as. */
const ADDRESS = 'coalesce(email_lower, base_email)';

/** Rows of one IP read by the first statement; past this the totals come from a second one. */
export const RECENT_ROWS = 2_000;

function ipFilter(q: IpQuery): Statement {
  const branches: string[] = [];
  const bindings: unknown[] = [];
  if (q.ipv4 !== null) {
    branches.push('(project_id = ? and ipv4 = ?)');
    bindings.push(q.projectId, q.ipv4);
  }
  if (q.ipv6 !== null) {
    branches.push('(project_id = ? and ipv6 = ?)');
    bindings.push(q.projectId, q.ipv6);
  }
  return { sql: branches.join(' or '), bindings };
}

/** The IP's newest rows, newest first. */
export function recentStatement(q: IpQuery): Statement {
  const where = ipFilter(q);
  return {
    sql: `select ${ADDRESS} as email_lower, created_at from events where ${where.sql} order by created_at desc limit ?`,
    bindings: [...where.bindings, RECENT_ROWS],
  };
}

/** Total rows, distinct addresses and rows since each window start, over the IP's whole history. */
export function countsStatement(q: IpQuery): Statement {
  const where = ipFilter(q);
  const windows = q.since.map((_, i) => `, sum(case when created_at >= ? then 1 else 0 end) as since_${i}`).join('');
  return {
    sql: `select count(*) as total, count(distinct ${ADDRESS}) as distinct_emails${windows} from events where ${where.sql}`,
    bindings: [...q.since, ...where.bindings],
  };
}

/** Whether the recent rows are the IP's whole history (then no second statement is needed). */
export function isWholeHistory(rows: readonly unknown[]): boolean {
  return rows.length < RECENT_ROWS;
}

/**
 * Velocity from the newest rows (newest first), and from the counts statement when the rows are not the
 * whole history. The address list is exact either way: the newest distinct addresses are in the newest rows.
 */
export function ipVelocityFrom(q: IpQuery, recent: ReadonlyArray<Record<string, unknown>>, counts?: Record<string, unknown>): IpVelocity {
  const latest = new Map<string, number>();
  for (const row of recent) {
    const email = String(row.email_lower);
    if (!latest.has(email)) latest.set(email, toNumber(row.created_at));
  }
  const emails = [...latest].slice(0, q.limit).map(([email, at]) => ({ email, at }));
  if (counts) {
    return {
      emails,
      distinctEmails: toNumber(counts.distinct_emails),
      total: toNumber(counts.total),
      since: q.since.map((_, i) => toNumber(counts[`since_${i}`])),
    };
  }
  const times = recent.map((row) => toNumber(row.created_at));
  return {
    emails,
    distinctEmails: latest.size,
    total: recent.length,
    since: q.since.map((start) => countAtOrAfter(times, start)),
  };
}

/** Rows at or after `start` in times sorted newest first. */
function countAtOrAfter(times: readonly number[], start: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((times[mid] as number) >= start) low = mid + 1;
    else high = mid;
  }
  return low;
}
