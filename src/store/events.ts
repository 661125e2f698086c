// events: one row per verify/intelligence call, the history behind velocity. Writes are group
// committed (event-writer.ts): a record() resolves only once the commit holding its row is done, so a
// response is sent only after its event is durable. Reads are always scoped to one project.
import { setImmediate as nextTurn } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import type { Knex } from 'knex';
import type { SpreadKind, VelocityReader } from '../engine/plugin.js';
import type { EventRow } from './commit-statements.js';
import { type DecisionFilter, type DecisionList, eventById, findDecision, listDecisions, type StoredDecision } from './decisions.js';
import { createEventWriter } from './event-writer.js';
import { toNumber } from './sql-values.js';
import { sqliteReads } from './sqlite-statements.js';
import type { SqliteWriter } from './sqlite-writer.js';
import type { VelocityCache } from './velocity-cache.js';
import {
  COUNTED_COLUMNS,
  type CounterKind,
  countsStatement,
  limitClause,
  pruneCountersBatch,
  rowsOf,
  subtractEvents,
  TOTAL_BUCKET,
} from './velocity-counters.js';
import { emptyVelocity, mergeVelocity, type Reads, type Statement, subjectHistory, subjectVelocity } from './velocity-queries.js';

export type { DecisionFilter, DecisionList, DecisionSummary, StoredDecision } from './decisions.js';
export type { Reads } from './velocity-queries.js';

export interface NewEvent {
  projectId: string;
  /** Which operation made the call, e.g. `verify` or `intelligence`. */
  endpoint: string;
  /** The address as passed. */
  email: string;
  /** The whole address lower-cased with Unicode rules: what per-IP velocity tells addresses apart by. */
  emailLower: string;
  /** The normalised base address (no plus tag, gmail dots removed, …): what velocity by email groups by. */
  baseEmail: string;
  domain?: string | null;
  ipv4?: string | null;
  ipv6?: string | null;
  /** Device hash from a fingerprint. */
  device?: string | null;
  /** Id of the fingerprint token presented (FingerprintInput.token): its uses are found by it. */
  fingerprintToken?: string | null;
  action: string;
  riskScore?: number | null;
  /** Content hash of the policy that decided. */
  policyRevision?: string | null;
  /** Name of the policy that decided. */
  policyName?: string | null;
  /** The decision's public id (X-Decision-Id): a UUIDv7 the service made when it decided. */
  decisionId?: string | null;
  /** X-Request-Id of the request decided. */
  requestId?: string | null;
  /** verify's error and warning codes (snake_case, no spaces). */
  errors?: readonly string[] | null;
  warnings?: readonly string[] | null;
  /** intelligence: the index of the parent rule that decided (null: none did). */
  parentRule?: number | null;
  /** The network and history facts the decision read (fact → value), for `policy replay`; JSON-serialisable. */
  recordedFacts?: Readonly<Record<string, unknown>> | null;
  /** Milliseconds since the epoch; defaults to the time of record(). */
  createdAt?: number;
  /** A call of a non-sandbox project, served once this event commits: counted toward its monthly quota (usage.ts). */
  countsTowardQuota?: boolean;
}

export interface EmailOccurrence {
  email: string;
  baseEmail: string;
  at: number;
}

export interface EmailVelocity {
  /** Occurrences of the base address, newest first, at most `limit`. */
  items: EmailOccurrence[];
  /** All occurrences of the base address (from its counter: one row read). */
  count: number;
}

export interface IpOccurrence {
  ipv4: string | null;
  ipv6: string | null;
  at: number;
}

export interface IpHistory {
  /** Validations from the IP(s), newest first, at most `limit`. */
  items: IpOccurrence[];
  /** All validations from the IP (the larger of the two addresses' counts when both are given). */
  count: number;
}

export interface Events {
  /** Resolves once the row is committed; rejects when its commit fails. */
  record(event: NewEvent): Promise<void>;
  /** Velocity history of one project: it never sees another project's rows. */
  velocityReader(projectId: string): VelocityReader;
  byEmail(projectId: string, baseEmail: string, limit: number): Promise<EmailVelocity>;
  /** Past validations from an IPv4 and/or IPv6 address (intelligence's velocity_by_ip). */
  byIpHistory(projectId: string, ip: { ipv4: string | null; ipv6: string | null }, limit: number): Promise<IpHistory>;
  /** A project's stored decisions, newest first, filtered and bounded (decisions.ts). */
  list(filter: DecisionFilter): Promise<DecisionList>;
  /** The event of a decision id (X-Decision-Id), within the project when one is given: at most one row. */
  findDecision(projectId: string | null, decisionId: string): Promise<StoredDecision | null>;
  /** The event of a numeric event id (`events.id`). */
  get(id: number): Promise<StoredDecision | null>;
  /** Deletes events created before `cutoff` (ms) in batches of `batchSize` rows; returns how many. */
  pruneOlderThan(cutoff: number, batchSize?: number): Promise<number>;
  /** Waits until every record() made so far has settled. */
  flush(): Promise<void>;
}

const MAX_LIMIT = 1_000;

/** One spelling per address, so `2001:DB8::1` and `2001:db8:0::1` are the same IP in history. */
export function canonicalIp(ip: string | null | undefined): string | null {
  if (ip === null || ip === undefined) return null;
  const trimmed = ip.trim();
  if (trimmed === '') return null;
  if (ipaddr.IPv6.isValid(trimmed)) return (ipaddr.IPv6.parse(trimmed) as ipaddr.IPv6).toRFC5952String();
  return trimmed.toLowerCase();
}

function requireText(event: NewEvent, field: 'projectId' | 'endpoint' | 'email' | 'emailLower' | 'baseEmail' | 'action'): string {
  const value = event[field];
  if (typeof value !== 'string' || value === '') throw new TypeError(`event.${field} must be a non-empty string`);
  return value;
}

function optionalText(
  event: NewEvent,
  field: 'domain' | 'device' | 'fingerprintToken' | 'policyRevision' | 'policyName' | 'decisionId' | 'requestId',
): string | null {
  const value = event[field];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new TypeError(`event.${field} must be a string or null`);
  return value;
}

/** Stored as JSON text; an empty snapshot (the decision read no network or history fact) as null. */
function recordedFactsOf(facts: NewEvent['recordedFacts']): string | null {
  if (facts === null || facts === undefined) return null;
  if (typeof facts !== 'object' || Array.isArray(facts)) throw new TypeError('event.recordedFacts must be an object or null');
  for (const _ in facts) return JSON.stringify(facts);
  return null;
}

/** Codes joined by spaces, null when there is none. */
function codesOf(event: NewEvent, field: 'errors' | 'warnings'): string | null {
  const codes = event[field];
  if (codes === null || codes === undefined || codes.length === 0) return null;
  if (!Array.isArray(codes) || codes.some((c) => typeof c !== 'string' || !/^[a-z0-9_]+$/.test(c)))
    throw new TypeError(`event.${field} must be a list of snake_case codes or null`);
  return codes.join(' ');
}

/** Checks every column before queueing, so one bad row can never fail a whole group commit. */
function toRow(event: NewEvent): EventRow {
  const createdAt = event.createdAt ?? Date.now();
  if (!Number.isSafeInteger(createdAt)) throw new TypeError('event.createdAt must be integer milliseconds');
  const risk = event.riskScore ?? null;
  if (risk !== null && !Number.isSafeInteger(risk)) throw new TypeError('event.riskScore must be an integer or null');
  const parentRule = event.parentRule ?? null;
  if (parentRule !== null && !Number.isSafeInteger(parentRule)) throw new TypeError('event.parentRule must be an integer or null');
  return {
    project_id: requireText(event, 'projectId'),
    endpoint: requireText(event, 'endpoint'),
    email: requireText(event, 'email'),
    email_lower: requireText(event, 'emailLower'),
    base_email: requireText(event, 'baseEmail'),
    domain: optionalText(event, 'domain'),
    ipv4: canonicalIp(event.ipv4),
    ipv6: canonicalIp(event.ipv6),
    device: optionalText(event, 'device'),
    fingerprint_token: optionalText(event, 'fingerprintToken'),
    action: requireText(event, 'action'),
    risk_score: risk,
    policy_revision: optionalText(event, 'policyRevision'),
    recorded_facts: recordedFactsOf(event.recordedFacts),
    created_at: createdAt,
    decision_id: optionalText(event, 'decisionId'),
    request_id: optionalText(event, 'requestId'),
    policy_name: optionalText(event, 'policyName'),
    errors: codesOf(event, 'errors'),
    warnings: codesOf(event, 'warnings'),
    parent_rule: parentRule,
    counted: event.countsTowardQuota === true,
  };
}

function clampLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.max(0, Math.min(MAX_LIMIT, Math.trunc(limit))) : 0;
}

/** How long a velocity read may wait for the database before it fails (its facts are then unknown). */
export const READ_TIMEOUT_MS = 2_000;

/**
 * Reads through knex, each bounded by `timeoutMs`; with `cancel` (PostgreSQL) a read past it is also
 * cancelled in the database rather than left running. `cache`: an embedded file's velocity cache. `hold`:
 * knex's SQLite pool is the reads' own, and they keep one of its connections until `release()`.
 */
export function knexReads(
  knex: Knex,
  bound: { timeoutMs: number; cancel: boolean } = { timeoutMs: READ_TIMEOUT_MS, cancel: false },
  cache: VelocityCache | null = null,
  hold = false,
): Reads & { release(): Promise<void> } {
  // On SQLite, synchronous prepared statements (sqlite-statements.ts).
  const sqlite = sqliteReads(knex, hold);
  const query = ({ sql, bindings }: Statement) => knex.raw(sql, bindings as Knex.RawBinding[]).timeout(bound.timeoutMs, { cancel: bound.cancel });
  if (sqlite) return { all: sqlite.all, release: sqlite.release, ...(cache ? { cache } : {}) };
  return { all: async (statement) => rowsOf(await query(statement)), release: async () => undefined, ...(cache ? { cache } : {}) };
}

/**
 * Events written through `thread` (an embedded file's writer thread) or else `knex` (group commits:
 * event-writer.ts), and read through `reads` (each read bounded); `reads.cache` (an embedded file's) is kept
 * up to date by the writer and emptied by retention.
 */
export function createEvents(knex: Knex, reads: Reads = knexReads(knex), thread: SqliteWriter | null = null): Events {
  const writer = createEventWriter(knex, thread, reads.cache ?? null);
  return {
    record(event) {
      let row: EventRow;
      try {
        row = toRow(event);
      } catch (error) {
        return Promise.reject(error);
      }
      return writer.write(row);
    },
    velocityReader: (projectId) => velocityReader(reads, projectId),
    byEmail: (projectId, baseEmail, limit) => byEmail(reads, projectId, baseEmail, limit),
    byIpHistory: (projectId, ip, limit) => byIpHistory(reads, projectId, ip, limit),
    list: (filter) => listDecisions(reads, filter),
    findDecision: (projectId, decisionId) => findDecision(reads, projectId, decisionId),
    get: (id) => eventById(reads, id),
    pruneOlderThan: (cutoff, batchSize) => pruneOlderThan(knex, cutoff, batchSize, () => reads.cache?.clear()),
    flush: () => writer.flush(),
  };
}

function velocityReader(reads: Reads, projectId: string): VelocityReader {
  const windows = (since: number[]) => since.map((t) => (Number.isFinite(t) ? t : 0));
  return {
    async byIp(query) {
      const since = windows(query.since);
      const limit = clampLimit(query.limit);
      const ipv4 = canonicalIp(query.ipv4);
      const ipv6 = canonicalIp(query.ipv6);
      const read = (kind: 'ipv4' | 'ipv6', subject: string) => subjectVelocity(reads, { projectId, kind, subject, since, limit });
      if (ipv4 !== null && ipv6 !== null) {
        const [v4, v6] = await Promise.all([read('ipv4', ipv4), read('ipv6', ipv6)]);
        return mergeVelocity(v4, v6, limit);
      }
      if (ipv4 !== null) return read('ipv4', ipv4);
      if (ipv6 !== null) return read('ipv6', ipv6);
      return emptyVelocity(since);
    },
    async byDevice(query) {
      const since = windows(query.since);
      if (typeof query.device !== 'string' || query.device === '') return emptyVelocity(since);
      return subjectVelocity(reads, { projectId, kind: 'device', subject: query.device, since, limit: clampLimit(query.limit) });
    },
    async spread(query) {
      if (!SPREAD_KINDS.has(query.kind) || typeof query.subject !== 'string' || query.subject === '') return { seen: [], distinct: 0, total: 0 };
      const h = await subjectHistory(reads, { projectId, kind: query.kind, subject: query.subject, since: [], limit: clampLimit(query.limit) });
      return { seen: h.addresses.map((a) => ({ value: a.address, at: a.last_seen })), distinct: h.distinct, total: h.total };
    },
    async tokenUses(query) {
      if (typeof query.token !== 'string' || query.token === '') return [];
      const rows = await reads.all({ sql: eventsOfToken(clampLimit(query.limit)), bindings: [projectId, query.token] });
      return rows.map((r) => ({
        email: String(r.email_lower ?? r.base_email),
        ipv4: (r.ipv4 as string | null) ?? null,
        ipv6: (r.ipv6 as string | null) ?? null,
        at: toNumber(r.created_at),
      }));
    },
  };
}

const SPREAD_KINDS: ReadonlySet<string> = new Set<SpreadKind>(['device_ip', 'device_network']);

/** A subject's total validations: its counter's total row. */
async function totalOf(reads: Reads, projectId: string, kind: CounterKind, subject: string): Promise<number> {
  const [row] = await reads.all(countsStatement(projectId, kind, subject, TOTAL_BUCKET));
  return toNumber(row?.validations);
}

// The newest events of an address or an IP, through the (project_id, base_email | ipv4 | ipv6, created_at)
// indexes: bounded by their limit, and through `reads` (the read timeout).
const eventsOfEmail = (limit: number) =>
  `select email, base_email, created_at from events where project_id = ? and base_email = ? order by created_at desc ${limitClause(limit)}`;
const eventsOfIp = (column: 'ipv4' | 'ipv6', limit: number) =>
  `select id, ipv4, ipv6, created_at from events where project_id = ? and ${column} = ? order by created_at desc ${limitClause(limit)}`;

/** A token's newest events, through the partial (project_id, fingerprint_token, created_at) index (migration 0013). */
const eventsOfToken = (limit: number) =>
  `select email_lower, base_email, ipv4, ipv6, created_at from events where project_id = ? and fingerprint_token = ? order by created_at desc ${limitClause(limit)}`;

async function byEmail(reads: Reads, projectId: string, baseEmail: string, limit: number): Promise<EmailVelocity> {
  const [rows, count] = await Promise.all([
    reads.all({ sql: eventsOfEmail(clampLimit(limit)), bindings: [projectId, baseEmail] }),
    totalOf(reads, projectId, 'email', baseEmail),
  ]);
  return {
    items: rows.map((r) => ({ email: String(r.email), baseEmail: String(r.base_email), at: toNumber(r.created_at) })),
    count,
  };
}

/** Newest validations of each address through its (project_id, ip, created_at) index, merged. */
async function byIpHistory(reads: Reads, projectId: string, ip: { ipv4: string | null; ipv6: string | null }, limit: number): Promise<IpHistory> {
  const n = clampLimit(limit);
  const subjects = (
    [
      ['ipv4', canonicalIp(ip.ipv4)],
      ['ipv6', canonicalIp(ip.ipv6)],
    ] as const
  ).filter((s): s is readonly [CounterKind & ('ipv4' | 'ipv6'), string] => s[1] !== null);
  const found = await Promise.all(
    subjects.map(async ([kind, subject]) => {
      const [rows, count] = await Promise.all([
        reads.all({ sql: eventsOfIp(kind, n), bindings: [projectId, subject] }) as Promise<
          Array<{ id: unknown; ipv4: string | null; ipv6: string | null; created_at: unknown }>
        >,
        totalOf(reads, projectId, kind, subject),
      ]);
      return { rows, count };
    }),
  );
  // An event carrying both addresses is found twice: keep it once.
  const byId = new Map(found.flatMap((f) => f.rows).map((r) => [String(r.id), r]));
  const items = [...byId.values()]
    .map((r) => ({ ipv4: r.ipv4, ipv6: r.ipv6, at: toNumber(r.created_at) }))
    .sort((a, b) => b.at - a.at)
    .slice(0, n);
  return { items, count: Math.max(0, ...found.map((f) => f.count)) };
}

/**
 * Deletes old events in batches, each in one transaction with taking them off their subjects' totals,
 * then the minute and address rows older than the cutoff (velocity-counters.ts); `changed` after each commit.
 */
async function pruneOlderThan(knex: Knex, cutoff: number, batchSize: number | undefined, changed: () => void): Promise<number> {
  const size = Math.max(1, Math.trunc(batchSize ?? 1_000));
  let deleted = 0;
  for (;;) {
    const n: number = await knex.transaction(async (trx): Promise<number> => {
      const batch = (await trx('events')
        .select('id', ...COUNTED_COLUMNS)
        .where('created_at', '<', cutoff)
        .limit(size)) as Array<Record<(typeof COUNTED_COLUMNS)[number] | 'id', unknown>>;
      if (batch.length === 0) return 0;
      await subtractEvents(trx, batch);
      return trx('events')
        .whereIn(
          'id',
          batch.map((r) => r.id as number),
        )
        .del();
    });
    if (n > 0) changed();
    deleted += n;
    if (n < size) break;
    await nextTurn(); // let requests' queries through between batches
  }
  while ((await pruneCountersBatch(knex, cutoff, size)) > 0) {
    changed();
    await nextTurn();
  }
  return deleted;
}
