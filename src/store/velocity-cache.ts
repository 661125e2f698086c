// Velocity reads on an embedded SQLite file answered from memory (issue 12): the rows the two read
// statements of a subject (velocity-counters.ts: counts from a bucket on, newest addresses) returned, kept
// per (project, kind, subject) and brought up to date by this process's event writer after each commit
// with exactly what the commit added (the same increments the upserts made). So a cached answer is the
// one the database would give, row for row, never an approximation:
//
// - Another connection's commit (retention and project lists through knex, a second process on the file)
//   changes the writer connection's `PRAGMA data_version`: every entry read before it is dropped.
// - A read that raced a commit of this process (read, then the commit, then the answer stored) is not
//   stored: the commit counter moved.
// - An entry answers a window read only from the bucket it was read from on, and an address list only up
//   to the limit it was read with; otherwise the statements run and replace it.
// - Address rows are ordered as SQLite's covering index returns them: last_seen descending, then the
//   address descending in binary (UTF-8) order.
import { LRUCache } from 'lru-cache';
import type { AddressRow, CountRow } from './velocity-counters.js';
import { type CounterKind, MAX_WINDOW_BUCKETS, TOTAL_BUCKET } from './velocity-counters.js';

/** Subjects held; the least recently read go first. An entry is at most 182 buckets and `limit` addresses (about 20 KB at 100). */
export const MAX_CACHED_SUBJECTS = 1_024;

type Rows = Array<Record<string, unknown>>;

/** One subject as held (see Entry), on its way to another copy of the cache (sqlite-thread.ts's replica). */
export interface HeldSubject {
  floor: number;
  total: number;
  distinct: number;
  /** [bucket, validations] pairs, flat, newest first. */
  minutes: number[];
  limit: number;
  addresses: string[];
  /** last_seen of each of `addresses`. */
  lastSeen: number[];
}

interface Entry {
  version: number;
  /** Minute rows are held from this bucket on (the bucket the statement read from). */
  floor: number;
  total: number;
  distinct: number;
  /** [bucket, validations], newest first, at most MAX_WINDOW_BUCKETS. */
  minutes: Array<[number, number]>;
  /** The address statement's limit when it was read; the list holds at most this many. */
  limit: number;
  addresses: Array<{ address: string; last_seen: number }>;
  /** last_seen of each of `addresses`, in the same order (see SubjectHistory.lastSeen). */
  lastSeen: number[];
  /** How many of `addresses` lower-case to each form (see SubjectHistory.lowered). */
  lowered: Map<string, number>;
}

/**
 * What a subject's two statements would return (velocity-counters.ts), as the cache holds it: the total row's
 * counts, the minute rows from the bucket read on (newest first, at most MAX_WINDOW_BUCKETS) and the newest
 * addresses (at most the limit read). Read at once: the arrays and their items are the cache's own.
 */
export interface SubjectHistory {
  total: number;
  distinct: number;
  minutes: ReadonlyArray<readonly [number, number]>;
  addresses: ReadonlyArray<{ readonly address: string; readonly last_seen: number }>;
  /**
   * When the whole list is given: the last_seen of each address, in order, and how many of the addresses
   * lower-case to each form. A read whose own address is not among them counts its windows from these
   * numbers alone, without reaching each of up to 100 address objects and strings (under load, 20 µs of
   * cache misses a request once the IPs' lists were full).
   */
  lastSeen?: readonly number[];
  lowered?: ReadonlyMap<string, number>;
}

export interface VelocityCache {
  /** The subject's history as its statements would read it, or null when they must run. */
  get(projectId: string, kind: CounterKind, subject: string, fromBucket: number, limit: number): SubjectHistory | null;
  /** A token to take before running the statements and hand to set(). */
  begin(): { version: number; commits: number };
  /** Keeps what the statements returned, unless a commit of this process or another connection came between. */
  set(
    token: { version: number; commits: number },
    projectId: string,
    kind: CounterKind,
    subject: string,
    fromBucket: number,
    limit: number,
    counts: Rows,
    addresses: Rows,
  ): void;
  /** After a commit of this process: its increments (aggregate() of velocity-counters.ts, distinct counts included). */
  apply(counts: readonly CountRow[], addresses: readonly AddressRow[]): void;
  /** A subject as held now, or null when it is not. */
  held(projectId: string, kind: CounterKind, subject: string): HeldSubject | null;
  /** Holds a subject as another copy held it at this cache's current version (the copies saw the same commits). */
  adopt(projectId: string, kind: CounterKind, subject: string, held: HeldSubject): void;
  /** Drops every subject. */
  clear(): void;
}

const keyOf = (projectId: string, kind: string, subject: string) => `${projectId}\u0000${kind}\u0000${subject}`;

/** SQLite's order of text (memcmp of UTF-8), which differs from JavaScript's (UTF-16) beyond U+FFFF. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** `addresses`' last_seen in order and their lower-cased forms counted (Entry.lastSeen, Entry.lowered). */
function indexOf(addresses: ReadonlyArray<{ address: string; last_seen: number }>): { lastSeen: number[]; lowered: Map<string, number> } {
  const lastSeen: number[] = new Array(addresses.length);
  const lowered = new Map<string, number>();
  for (let i = 0; i < addresses.length; i++) {
    const { address, last_seen } = addresses[i] as { address: string; last_seen: number };
    lastSeen[i] = last_seen;
    countLowered(lowered, address, 1);
  }
  return { lastSeen, lowered };
}

function countLowered(lowered: Map<string, number>, address: string, by: 1 | -1): void {
  const form = address.toLowerCase();
  const n = (lowered.get(form) ?? 0) + by;
  if (n > 0) lowered.set(form, n);
  else lowered.delete(form);
}

const newestFirst = (x: { address: string; last_seen: number }, y: { address: string; last_seen: number }) =>
  y.last_seen - x.last_seen || compareText(y.address, x.address);

/** `version`: the writer connection's PRAGMA data_version (changes when any other connection commits). */
export function createVelocityCache(version: () => number): VelocityCache {
  const entries = new LRUCache<string, Entry>({ max: MAX_CACHED_SUBJECTS });
  let commits = 0;

  return {
    get(projectId, kind, subject, fromBucket, limit) {
      const entry = entries.get(keyOf(projectId, kind, subject));
      if (!entry || fromBucket < entry.floor || limit > entry.limit) return null;
      if (entry.version !== version()) {
        entries.clear(); // another connection wrote: nothing held can be trusted
        return null;
      }
      // Newest first: the minutes from fromBucket on are a prefix (apply keeps at most MAX_WINDOW_BUCKETS).
      let minutes = 0;
      while (minutes < entry.minutes.length && minutes < MAX_WINDOW_BUCKETS && (entry.minutes[minutes] as [number, number])[0] >= fromBucket) minutes++;
      const whole = limit >= entry.addresses.length;
      return {
        total: entry.total,
        distinct: entry.distinct,
        minutes: minutes === entry.minutes.length ? entry.minutes : entry.minutes.slice(0, minutes),
        addresses: whole ? entry.addresses : entry.addresses.slice(0, limit),
        ...(whole ? { lastSeen: entry.lastSeen, lowered: entry.lowered } : {}),
      };
    },

    begin: () => ({ version: version(), commits }),

    set(token, projectId, kind, subject, fromBucket, limit, counts, addresses) {
      if (token.commits !== commits || token.version !== version()) return;
      const [first, ...rest] = counts;
      // Only a subject with a total row (the statement returns it first): anything else is read each time.
      if (!first || Number(first.bucket) !== TOTAL_BUCKET) return;
      const list = addresses.map((r) => ({ address: String(r.address), last_seen: Number(r.last_seen) }));
      entries.set(keyOf(projectId, kind, subject), {
        version: token.version,
        floor: fromBucket,
        total: Number(first.validations),
        distinct: Number(first.addresses),
        minutes: rest.map((r) => [Number(r.bucket), Number(r.validations)]),
        limit,
        addresses: list,
        ...indexOf(list),
      });
    },

    held(projectId, kind, subject) {
      const entry = entries.peek(keyOf(projectId, kind, subject));
      if (!entry) return null;
      return {
        floor: entry.floor,
        total: entry.total,
        distinct: entry.distinct,
        minutes: entry.minutes.flat(),
        limit: entry.limit,
        addresses: entry.addresses.map((a) => a.address),
        lastSeen: entry.addresses.map((a) => a.last_seen),
      };
    },

    adopt(projectId, kind, subject, held) {
      const minutes: Array<[number, number]> = [];
      for (let i = 0; i + 1 < held.minutes.length; i += 2) minutes.push([held.minutes[i] as number, held.minutes[i + 1] as number]);
      const list = held.addresses.map((address, i) => ({ address, last_seen: held.lastSeen[i] as number }));
      entries.set(keyOf(projectId, kind, subject), {
        version: version(),
        floor: held.floor,
        total: held.total,
        distinct: held.distinct,
        minutes,
        limit: held.limit,
        addresses: list,
        ...indexOf(list),
      });
    },

    clear: () => entries.clear(),

    apply(counts, addresses) {
      commits += 1;
      for (const c of counts) {
        const entry = entries.peek(keyOf(c.project_id, c.kind, c.subject));
        if (!entry) continue;
        if (c.bucket === TOTAL_BUCKET) {
          entry.total += c.validations;
          entry.distinct += c.addresses;
          continue;
        }
        if (c.bucket < entry.floor) continue;
        // Newest first: the place of c's bucket, usually the front (a commit adds to the current minute).
        const { minutes } = entry;
        let at = 0;
        while (at < minutes.length && (minutes[at] as [number, number])[0] > c.bucket) at++;
        const found = minutes[at];
        if (found && found[0] === c.bucket) found[1] += c.validations;
        else minutes.splice(at, 0, [c.bucket, c.validations]);
        if (entry.minutes.length > MAX_WINDOW_BUCKETS) entry.minutes.length = MAX_WINDOW_BUCKETS;
      }
      for (const a of addresses) {
        const entry = entries.peek(keyOf(a.project_id, a.kind, a.subject));
        if (!entry) continue;
        const { addresses: list, lastSeen, lowered } = entry;
        // Held already? Only an address whose lower-cased form is counted can be (a new one, nearly every
        // event's, is known not to be without comparing it to each held address).
        let i = lowered.has(a.address.toLowerCase()) ? list.length - 1 : -1;
        while (i >= 0 && (list[i] as (typeof list)[number]).address !== a.address) i--;
        let item = { address: a.address, last_seen: a.last_seen };
        if (i >= 0) {
          const held = list[i] as (typeof list)[number];
          if (held.last_seen >= a.last_seen) continue; // its row keeps the later time
          list.splice(i, 1);
          lastSeen.splice(i, 1);
          item = held;
          held.last_seen = a.last_seen;
        } else countLowered(lowered, item.address, 1);
        // Into its place (usually the front: a new event is the newest); an address past the limit is not held.
        let at = 0;
        while (at < list.length && newestFirst(list[at] as (typeof list)[number], item) < 0) at++;
        if (at >= entry.limit) {
          countLowered(lowered, item.address, -1);
          continue;
        }
        list.splice(at, 0, item);
        lastSeen.splice(at, 0, item.last_seen);
        while (list.length > entry.limit) countLowered(lowered, (list.pop() as (typeof list)[number]).address, -1);
        lastSeen.length = list.length;
      }
    },
  };
}
