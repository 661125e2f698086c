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
import { setApart } from '../engine/own-address.js';
import type { OwnAddress, Velocity, VelocityEntry } from '../engine/plugin.js';
import type { SubjectHistory, VelocityCache } from './velocity-cache.js';
import { addressesStatement, type CounterKind, countsStatement, historyOf, MAX_WINDOW_BUCKETS, minuteOf, type Statement } from './velocity-counters.js';

export type { Statement } from './velocity-counters.js';

/** Runs read statements; the default goes through knex, an embedded SQLite file has a faster one. */
export interface Reads {
  all(statement: Statement): Promise<Array<Record<string, unknown>>>;
  /** An embedded file's subjects kept in memory, exact (velocity-cache.ts). */
  cache?: VelocityCache;
  /** A subject's whole read done elsewhere (an embedded file's store thread, sqlite-thread.ts): the value when at hand. */
  velocity?(query: SubjectQuery): Velocity | Promise<Velocity>;
}

export interface SubjectQuery {
  projectId: string;
  kind: CounterKind;
  subject: string;
  /** Window starts (ms). */
  since: number[];
  /** Addresses to read at most. */
  limit: number;
  /** The request's own address, set apart in the answer (withOwnAddress) where the history is read. */
  own?: OwnAddress;
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

/** The subject's velocity: at once when `reads` has it in memory, after its statements otherwise. */
export function subjectVelocity(reads: Reads, q: SubjectQuery): Velocity | Promise<Velocity> {
  if (reads.velocity) return reads.velocity(q);
  const held = reads.cache ? cachedVelocity(reads.cache, q) : null;
  return held ?? readVelocity(reads, q);
}

async function readVelocity(reads: Reads, q: SubjectQuery): Promise<Velocity> {
  const from = fromBucket(q.since);
  const token = reads.cache?.begin();
  const [counts, addresses] = await Promise.all([
    reads.all(countsStatement(q.projectId, q.kind, q.subject, from)),
    q.limit > 0 ? reads.all(addressesStatement(q.projectId, q.kind, q.subject, q.limit)) : Promise.resolve([]),
  ]);
  if (token) reads.cache?.set(token, q.projectId, q.kind, q.subject, from, q.limit, counts, addresses);
  return velocityOf(historyOf(counts, addresses), q);
}

/** The subject's velocity from what `cache` holds, without a wait; null when it must be read. */
export function cachedVelocity(cache: VelocityCache, q: SubjectQuery): Velocity | null {
  const held = cache.get(q.projectId, q.kind, q.subject, fromBucket(q.since), q.limit);
  return held ? velocityOf(held, q) : null;
}

/**
 * The velocity from a subject's history: a window starting at `start` counts the minute rows from the one
 * holding it on (the rows are newest first: a prefix of them); with `own`, the own address is set apart
 * (only the entries listed are made).
 */
function velocityOf(history: SubjectHistory, q: SubjectQuery): Velocity {
  const { minutes } = history;
  const since: number[] = new Array(q.since.length);
  for (let w = 0; w < q.since.length; w++) {
    const from = minuteOf(q.since[w] as number);
    let n = 0;
    for (let i = 0; i < minutes.length; i++) {
      const row = minutes[i] as readonly [number, number];
      if (row[0] < from) break;
      n += row[1];
    }
    since[w] = n;
  }
  const { addresses } = history;
  if (q.own) {
    if (history.lastSeen && history.lowered && !history.lowered.has(q.own.address)) return withoutOwn(history, history.lastSeen, q.own, since);
    const { list, answer } = setApart(
      addresses.length,
      (i) => (addresses[i] as SubjectHistory['addresses'][number]).address,
      (i) => (addresses[i] as SubjectHistory['addresses'][number]).last_seen,
      q.own,
    );
    return { emails: list, distinctEmails: history.distinct, total: history.total, since, own: answer };
  }
  return { emails: addresses.map((a) => ({ email: a.address, at: a.last_seen })), distinctEmails: history.distinct, total: history.total, since };
}

/**
 * The velocity when the request's own address is known not to be among the addresses (nearly every request
 * from an IP with new addresses): what setApart gives, from the history's last_seen numbers and the first
 * `own.list` entries only.
 */
function withoutOwn(history: SubjectHistory, lastSeen: readonly number[], own: OwnAddress, since: number[]): Velocity {
  const { addresses } = history;
  const othersSince: number[] = new Array(own.since.length);
  for (let w = 0; w < own.since.length; w++) {
    const from = own.since[w] as number;
    let n = 0;
    for (let k = 0; k < lastSeen.length; k++) if ((lastSeen[k] as number) >= from) n++;
    othersSince[w] = n;
  }
  const listed = Math.min(own.list, addresses.length);
  const list: VelocityEntry[] = new Array(listed);
  for (let k = 0; k < listed; k++) {
    const a = addresses[k] as SubjectHistory['addresses'][number];
    list[k] = { email: a.address, at: a.last_seen };
  }
  return { emails: list, distinctEmails: history.distinct, total: history.total, since, own: { seen: false, others: addresses.length, othersSince } };
}

/** Two subjects' velocity (read without `own`) as one: the larger of each count, the lists merged newest first. */
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
