// An event commit's rows and statements, as both commit paths run them: knex's transaction (event-writer.ts,
// PostgreSQL and a memory database) and the SQLite writer thread (sqlite-writer-thread.ts).
import { usageStatement } from './usage.js';
import { counterWrites, type Statement, valuesList } from './velocity-counters.js';

/** Rows per INSERT: 500 × 21 bindings stays below both databases' parameter limits (32,766 and 65,535). */
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
  'fingerprint_token',
  'action',
  'risk_score',
  'policy_revision',
  'recorded_facts',
  'created_at',
  'decision_id',
  'request_id',
  'policy_name',
  'errors',
  'warnings',
  'parent_rule',
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
  /** Id of the fingerprint token presented (a hash of it), null without one. */
  fingerprint_token: string | null;
  action: string;
  risk_score: number | null;
  policy_revision: string | null;
  /** JSON of the network and history facts the decision read (fact → value), for replay. */
  recorded_facts: string | null;
  created_at: number;
  /** The decision's public id (X-Decision-Id, a UUIDv7), null for an event that was no answer's. */
  decision_id: string | null;
  /** X-Request-Id of the request decided. */
  request_id: string | null;
  /** Name of the policy that decided (its revision is policy_revision). */
  policy_name: string | null;
  /** verify's error and warning codes, separated by spaces; null when there is none. */
  errors: string | null;
  warnings: string | null;
  /** intelligence: the index of the parent rule that decided, null when none did. */
  parent_rule: number | null;
  /** A served call of a non-sandbox project: it counts toward the project's monthly usage (not a column of events). */
  counted?: boolean;
}

/** A commit's statements, in the order they run: the events, the counters (velocity-counters.ts), the usage counts. */
export interface CommitStatements {
  rows: readonly EventRow[];
  events: Statement[];
  counters: ReturnType<typeof counterWrites>;
  usage: Statement[];
}

/** Plain multi-row VALUES, in statements of at most ROWS_PER_STATEMENT rows (knex would write SQLite's as UNION ALL selects). */
export function commitStatements(rows: readonly EventRow[]): CommitStatements {
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
