// VelocityReader over the counters of velocity-counters.ts. A subject's read is two statements, each
// bounded whatever its history: the total row with at most MAX_WINDOW_BUCKETS minute rows, and at most
// `limit` address rows, both from a primary key or covering index, both scoped to the project.
//
// Windows are minute-granular: a window starting at `start` counts the whole minute holding `start`, so
// "the last 5 minutes" counts the current minute and the 5 before it, between 5 and 6 minutes of history:
// it never under-counts. Distinct addresses per window are exact to the millisecond (each address row
// holds when it was last seen) up to `limit` addresses.
//
// A request with both an IPv4 and an IPv6 address reads both subjects: each count is the larger of the
// two subjects' (an event carrying both is one validation, not two), and the address lists are merged
// (an address seen from both keeps its latest time).
import type { Velocity, VelocityEntry } from '../engine/plugin.js';
import type { SubjectHistory, VelocityCache } from './velocity-cache.js';
import { addressesStatement, type CounterKind, countsStatement, historyOf, MAX_WINDOW_BUCKETS, minuteOf, type Statement } from './velocity-counters.js';

export type { Statement } from './velocity-counters.js';

/** Runs read statements (through knex, each bounded by the read timeout: events.ts, knexReads). */
export interface Reads {
  all(statement: Statement): Promise<Array<Record<string, unknown>>>;
  /** An embedded file's subjects kept in memory, exact (velocity-cache.ts). */
  cache?: VelocityCache;
}

export interface SubjectQuery {
  projectId: string;
  kind: CounterKind;
  subject: string;
  /** Window starts (ms). */
  since: number[];
  /** Addresses to read at most. */
  limit: number;
}

/** The first bucket a window read needs: the oldest window start, but never more than MAX_WINDOW_BUCKETS back from the newest. */
function fromBucket(since: readonly number[]): number {
  if (since.length === 0) return Number.MAX_SAFE_INTEGER; // the total row only
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;
  for (const start of since) {
    const minute = minuteOf(start);
    if (minute < oldest) oldest = minute;
    if (minute > newest) newest = minute;
  }
  return Math.max(oldest, newest - MAX_WINDOW_BUCKETS);
}

/** One subject's velocity: from the cache when it holds the subject, else its two bounded statements, run together. */
export async function subjectVelocity(reads: Reads, q: SubjectQuery): Promise<Velocity> {
  return velocityOf(await subjectHistory(reads, q), q.since);
}

/** One subject's history: from the cache when it holds the subject, else its two bounded statements, run together. */
export async function subjectHistory(reads: Reads, q: SubjectQuery): Promise<SubjectHistory> {
  const from = fromBucket(q.since);
  const cache = reads.cache;
  const held = cache?.get(q.projectId, q.kind, q.subject, from, q.limit);
  if (held) return held;
  const token = cache?.begin(q.projectId, q.kind, q.subject);
  const [counts, addresses] = await Promise.all([
    reads.all(countsStatement(q.projectId, q.kind, q.subject, from)),
    q.limit > 0 ? reads.all(addressesStatement(q.projectId, q.kind, q.subject, q.limit)) : Promise.resolve([]),
  ]);
  if (token) cache?.set(token, from, q.limit, counts, addresses);
  return historyOf(counts, addresses);
}

/** The velocity from a subject's history: a window starting at `start` counts the minute rows from the one holding it on (newest first: a prefix). */
function velocityOf(history: SubjectHistory, starts: readonly number[]): Velocity {
  const since = starts.map((start) => {
    const from = minuteOf(start);
    let n = 0;
    for (const [bucket, validations] of history.minutes) {
      if (bucket < from) break;
      n += validations;
    }
    return n;
  });
  return {
    emails: history.addresses.map((a) => ({ email: a.address, at: a.last_seen })),
    distinctEmails: history.distinct,
    total: history.total,
    since,
  };
}

/** Two subjects' velocity as one: the larger of each count, the lists merged newest first. */
export function mergeVelocity(a: Velocity, b: Velocity, limit: number): Velocity {
  const latest = new Map<string, number>();
  for (const e of [...a.emails, ...b.emails]) latest.set(e.email, Math.max(e.at, latest.get(e.email) ?? e.at));
  const emails: VelocityEntry[] = [...latest].map(([email, at]) => ({ email, at })).sort((x, y) => y.at - x.at || (x.email < y.email ? -1 : 1));
  return {
    emails: emails.slice(0, limit),
    distinctEmails: Math.max(a.distinctEmails, b.distinctEmails, latest.size),
    total: Math.max(a.total, b.total),
    since: a.since.map((n, i) => Math.max(n, b.since[i] ?? 0)),
  };
}

export function emptyVelocity(since: readonly number[]): Velocity {
  return { emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) };
}
