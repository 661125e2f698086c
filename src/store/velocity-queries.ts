// The two statements behind VelocityReader.byIp, written once as SQL that SQLite and PostgreSQL both
// run. Every branch repeats project_id, so each is answered from its own (project_id, ip, created_at)
// index and a project never reads another's rows. Addresses are told apart by base_email, which the
// service writes in its normalised form (SQLite's lower() folds ASCII letters only).
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

/** Rows of an IP read for its address list: the newest ones, enough for any list we show. */
export const EMAIL_SCAN_ROWS = 10_000;

/**
 * Distinct addresses from the IP, newest first, each with its latest time. The rows are picked in a
 * subquery first: grouped directly, SQLite prefers the base_email index and reads the whole project.
 */
export function emailsStatement(q: IpQuery): Statement {
  const where = ipFilter(q);
  return {
    sql:
      `select base_email as email, max(created_at) as last_at from ` +
      `(select base_email, created_at from events where ${where.sql} order by created_at desc limit ?) as recent ` +
      `group by base_email order by last_at desc, base_email limit ?`,
    bindings: [...where.bindings, EMAIL_SCAN_ROWS, q.limit],
  };
}

/** Total rows, distinct addresses and rows since each window start. */
export function countsStatement(q: IpQuery): Statement {
  const where = ipFilter(q);
  const windows = q.since.map((_, i) => `, sum(case when created_at >= ? then 1 else 0 end) as since_${i}`).join('');
  return {
    sql: `select count(*) as total, count(distinct base_email) as distinct_emails${windows} from events where ${where.sql}`,
    bindings: [...q.since, ...where.bindings],
  };
}

export function ipVelocityFrom(q: IpQuery, emailRows: Array<Record<string, unknown>>, counts: Record<string, unknown> | undefined): IpVelocity {
  return {
    emails: emailRows.map((r) => ({ email: String(r.email), at: toNumber(r.last_at) })),
    distinctEmails: toNumber(counts?.distinct_emails),
    total: toNumber(counts?.total),
    since: q.since.map((_, i) => toNumber(counts?.[`since_${i}`])),
  };
}
