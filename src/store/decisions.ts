// Stored decisions read back for the operator (`email-trust events list|show`) and, by their public id, for
// whoever holds one (issue 50's feedback). Every read is scoped to one project (a lookup by id to one row)
// and bounded: it goes through an index that ends in created_at, newest first, with a LIMIT. A filter no
// index serves (the action, an IP beside an address) is applied to the newest SCAN_LIMIT events that the
// indexed filter finds, and the answer says when that bound was reached.
import { toNullableNumber, toNumber } from './sql-values.js';
import { limitClause } from './velocity-counters.js';
import type { Reads, Statement } from './velocity-queries.js';

/** Most events one list returns. */
export const MAX_LIST_LIMIT = 1_000;
/** Most events a list with a filter no index serves looks through. */
export const SCAN_LIMIT = 100_000;

export interface DecisionFilter {
  projectId: string;
  /**
   * The events of an address: those whose base address is `base`, the address's variants included (a plus
   * tag, gmail's dots), and those stored before migration 0002 under the lower-cased address `lower`.
   */
  email?: { lower: string; base: string } | null;
  /** An IPv4 or IPv6 address, in the spelling events store (canonicalIp). */
  ip?: string | null;
  action?: string | null;
  /** Events created at or after this time (ms). */
  since?: number | null;
  /** 1 to MAX_LIST_LIMIT. */
  limit: number;
  /** How many events a filter no index serves looks through (default SCAN_LIMIT). */
  scanLimit?: number;
}

export interface DecisionSummary {
  id: number;
  decisionId: string | null;
  createdAt: number;
  endpoint: string;
  action: string;
  email: string;
  ipv4: string | null;
  ipv6: string | null;
  errors: string[];
  warnings: string[];
  parentRule: number | null;
}

export interface DecisionList {
  /** Newest first. */
  events: DecisionSummary[];
  /** Fewer than `limit` were found, and the search stopped at its scan limit (SCAN_LIMIT): older events were not looked at. */
  bounded: boolean;
}

/** An event as stored, with what it recorded. */
export interface StoredDecision extends DecisionSummary {
  requestId: string | null;
  projectId: string;
  emailLower: string | null;
  baseEmail: string;
  domain: string | null;
  device: string | null;
  fingerprintToken: string | null;
  riskScore: number | null;
  policyName: string | null;
  policyRevision: string | null;
  /** The network and history facts the decision read (fact → value); null when none were recorded. */
  recordedFacts: Record<string, unknown> | null;
}

const SUMMARY_COLUMNS = 'id, decision_id, created_at, endpoint, action, email, ipv4, ipv6, errors, warnings, parent_rule';
const ALL_COLUMNS = `${SUMMARY_COLUMNS}, request_id, project_id, email_lower, base_email, domain, device, fingerprint_token, risk_score, policy_name, policy_revision, recorded_facts`;
const NEWEST = 'order by created_at desc, id desc';

/** What a decision id looks like (a UUID); anything else finds nothing without a query. */
const DECISION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Row = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const codes = (value: unknown): string[] => (typeof value === 'string' && value !== '' ? value.split(' ') : []);

function summaryOf(r: Row): DecisionSummary {
  return {
    id: toNumber(r.id),
    decisionId: text(r.decision_id),
    createdAt: toNumber(r.created_at),
    endpoint: String(r.endpoint),
    action: String(r.action),
    email: String(r.email),
    ipv4: text(r.ipv4),
    ipv6: text(r.ipv6),
    errors: codes(r.errors),
    warnings: codes(r.warnings),
    parentRule: toNullableNumber(r.parent_rule),
  };
}

function storedOf(r: Row): StoredDecision {
  const facts = text(r.recorded_facts);
  return {
    ...summaryOf(r),
    requestId: text(r.request_id),
    projectId: String(r.project_id),
    emailLower: text(r.email_lower),
    baseEmail: String(r.base_email),
    domain: text(r.domain),
    device: text(r.device),
    fingerprintToken: text(r.fingerprint_token),
    riskScore: toNullableNumber(r.risk_score),
    policyName: text(r.policy_name),
    policyRevision: text(r.policy_revision),
    recordedFacts: facts === null ? null : (JSON.parse(facts) as Record<string, unknown>),
  };
}

/** One indexed read: the project's events, or those of one subject through its (project_id, subject, created_at) index. */
interface Source {
  column: 'base_email' | 'ipv4' | 'ipv6' | null;
  value: string | null;
}

const ipColumn = (ip: string): 'ipv4' | 'ipv6' => (ip.includes(':') ? 'ipv6' : 'ipv4');

/** The indexed reads a filter is served by, and the filters applied to what they find. */
function planOf(filter: DecisionFilter): { sources: Source[]; rest: Statement[] } {
  const rest: Statement[] = [];
  let sources: Source[];
  if (filter.email) {
    const { base, lower } = filter.email;
    sources = [{ column: 'base_email', value: base }, ...(lower !== base ? [{ column: 'base_email' as const, value: lower }] : [])];
    if (filter.ip) rest.push({ sql: `${ipColumn(filter.ip)} = ?`, bindings: [filter.ip] });
  } else if (filter.ip) sources = [{ column: ipColumn(filter.ip), value: filter.ip }];
  else sources = [{ column: null, value: null }];
  if (filter.action) rest.push({ sql: 'action = ?', bindings: [filter.action] });
  return { sources, rest };
}

function sourceRead(filter: DecisionFilter, source: Source, columns: string, limit: number): Statement {
  const where = ['project_id = ?'];
  const bindings: unknown[] = [filter.projectId];
  if (source.column !== null) {
    where.push(`${source.column} = ?`);
    bindings.push(source.value);
  }
  if (filter.since !== null && filter.since !== undefined) {
    where.push('created_at >= ?');
    bindings.push(filter.since);
  }
  return { sql: `select ${columns} from events where ${where.join(' and ')} ${NEWEST} ${limitClause(limit)}`, bindings };
}

/** The newest events of a project that pass the filter, at most `filter.limit`. */
export async function listDecisions(reads: Reads, filter: DecisionFilter): Promise<DecisionList> {
  const limit = Math.trunc(filter.limit);
  if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) throw new RangeError(`a list's limit is 1 to ${MAX_LIST_LIMIT}, not ${filter.limit}`);
  const { sources, rest } = planOf(filter);
  const [only] = sources;
  if (only && sources.length === 1 && rest.length === 0) {
    return { events: (await reads.all(sourceRead(filter, only, SUMMARY_COLUMNS, limit))).map(summaryOf), bounded: false };
  }
  const scanLimit = Math.max(limit, Math.trunc(filter.scanLimit ?? SCAN_LIMIT));
  const scan = rest.length > 0 ? scanLimit : limit;
  const scans = sources.map((source) => sourceRead(filter, source, SUMMARY_COLUMNS, scan));
  const union = scans.map((r, i) => `select ${SUMMARY_COLUMNS} from (${r.sql}) as s${i}`).join(' union all ');
  const where = rest.length > 0 ? `where ${rest.map((r) => r.sql).join(' and ')}` : '';
  const statement = {
    sql: `select ${SUMMARY_COLUMNS} from (${union}) as found ${where} ${NEWEST} ${limitClause(limit)}`,
    bindings: [...scans.flatMap((r) => r.bindings), ...rest.flatMap((r) => r.bindings)],
  };
  const events = (await reads.all(statement)).map(summaryOf);
  return { events, bounded: events.length < limit && rest.length > 0 && (await reachedScanLimit(reads, filter, sources, scanLimit)) };
}

/** Whether one of the reads has more than `scanLimit` events (a count bounded by one more). */
async function reachedScanLimit(reads: Reads, filter: DecisionFilter, sources: readonly Source[], scanLimit: number): Promise<boolean> {
  for (const source of sources) {
    const read = sourceRead(filter, source, 'id', scanLimit + 1);
    const [row] = await reads.all({ sql: `select count(*) as n from (${read.sql}) as scanned`, bindings: read.bindings });
    if (toNumber(row?.n) > scanLimit) return true;
  }
  return false;
}

/** The event of a decision id, of the project when one is given; null when there is none. */
export async function findDecision(reads: Reads, projectId: string | null, decisionId: string): Promise<StoredDecision | null> {
  const id = decisionId.trim().toLowerCase();
  if (!DECISION_ID.test(id)) return null;
  const scoped = projectId === null ? '' : ' and project_id = ?';
  const rows = await reads.all({
    sql: `select ${ALL_COLUMNS} from events where decision_id = ?${scoped} ${limitClause(1)}`,
    bindings: [id, ...(projectId === null ? [] : [projectId])],
  });
  return rows[0] ? storedOf(rows[0]) : null;
}

/** The event of a numeric event id (events.id); null when there is none. */
export async function eventById(reads: Reads, id: number): Promise<StoredDecision | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const rows = await reads.all({ sql: `select ${ALL_COLUMNS} from events where id = ? ${limitClause(1)}`, bindings: [id] });
  return rows[0] ? storedOf(rows[0]) : null;
}
