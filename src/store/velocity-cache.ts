// Velocity reads of an embedded SQLite file answered from memory, on the event loop: the rows a subject's
// two read statements (velocity-counters.ts) returned, kept per (project, kind, subject) and brought up to
// date after each commit of this process's event writer with exactly what the commit added (the increments
// its upserts made). So a cached answer is the one the database would give, row for row:
//
// - This process's event commits and the writes beside them go through the writer thread's connection
//   (sqlite-writer.ts); another connection's commit (a second process on the file, the CLI, knex's connection
//   here) changes that connection's `PRAGMA data_version`, read every VERSION_POLL_MS: a change drops every
//   entry, and without a reading within VERSION_FRESH_MS nothing is answered from memory. Retention through
//   this process drops every entry too (events.ts).
// - A subject's read that overlapped a commit of this process touching that subject (the commit in flight
//   when the read began, or begun before its answer came) is not kept: its rows may or may not hold it.
// - An entry answers a window read only from the bucket it was read from on, and an address list only up to
//   the limit it was read with; otherwise the statements run and replace it.
// - Address rows are ordered as SQLite's covering index returns them: last_seen descending, then the address
//   descending in binary (UTF-8) order.
import { LRUCache } from 'lru-cache';
import type { AddressRow, CountRow } from './velocity-counters.js';
import { type CounterKind, MAX_WINDOW_BUCKETS, TOTAL_BUCKET } from './velocity-counters.js';

/** Subjects held; the least recently read go first. An entry is at most 182 buckets and `limit` addresses (about 20 KB at 100). */
export const MAX_CACHED_SUBJECTS = 1_024;
/** How often the writer thread's connection reads its data_version. */
export const VERSION_POLL_MS = 50;
/** How old the last reading may be for the cache to answer: another process's commit is seen within this. */
export const VERSION_FRESH_MS = 1_000;

type Rows = ReadonlyArray<Record<string, unknown>>;

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
}

/** What a subject's two statements would return, as the cache holds it (the arrays are the cache's own: read at once). */
export interface SubjectHistory {
  total: number;
  distinct: number;
  minutes: ReadonlyArray<readonly [number, number]>;
  addresses: ReadonlyArray<{ readonly address: string; readonly last_seen: number }>;
}

export interface VelocityCache {
  /** The subject's history as its statements would read it, or null when they must run. */
  get(projectId: string, kind: CounterKind, subject: string, fromBucket: number, limit: number): SubjectHistory | null;
  /** A token to take before running the subject's statements and hand to set(). */
  begin(projectId: string, kind: CounterKind, subject: string): Token;
  /** Keeps what the statements returned, unless a commit touching the subject or another connection's came between. */
  set(token: Token, fromBucket: number, limit: number, counts: Rows, addresses: Rows): void;
  /** Before a commit of this process, with the counter rows it will upsert: its id for apply() or failed(). */
  committing(counts: readonly CountRow[]): number;
  /** After that commit: its increments (the total rows' distinct counts included). */
  apply(id: number, counts: readonly CountRow[], addresses: readonly AddressRow[]): void;
  /** After that commit failed (rolled back: nothing to apply). */
  failed(id: number): void;
  /** Drops every subject (retention through this process). */
  clear(): void;
}

/** What begin() hands to set(); null: the read is not to be kept. */
export type Token = { key: string; version: number; commit: number } | null;

/** Finished commits whose subjects are remembered for the reads in flight; a read older than them is not kept. */
const RECENT_COMMITS = 256;

const keyOf = (projectId: string, kind: string, subject: string) => `${projectId}\u0000${kind}\u0000${subject}`;

/** SQLite's order of text (memcmp of UTF-8), which differs from JavaScript's (UTF-16) beyond U+FFFF. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const newestFirst = (x: { address: string; last_seen: number }, y: { address: string; last_seen: number }) =>
  y.last_seen - x.last_seen || compareText(y.address, x.address);

/** `version`: a count raised by each change of the writer thread's data_version, or null when it is not known to be fresh. */
export function createVelocityCache(version: () => number | null): VelocityCache {
  const entries = new LRUCache<string, Entry>({ max: MAX_CACHED_SUBJECTS });
  /** The last commit id given. */
  let lastCommit = 0;
  /** Subjects of the commits in flight, and how many of them touch each. */
  const inFlight = new Map<number, readonly string[]>();
  const pending = new Map<string, number>();
  /** The subjects of the last RECENT_COMMITS finished commits, oldest first. */
  const recent: Array<{ id: number; keys: ReadonlySet<string> }> = [];
  const finish = (id: number) => {
    const keys = inFlight.get(id) ?? [];
    inFlight.delete(id);
    for (const key of keys) {
      const n = (pending.get(key) ?? 1) - 1;
      if (n > 0) pending.set(key, n);
      else pending.delete(key);
    }
    recent.push({ id, keys: new Set(keys) });
    if (recent.length > RECENT_COMMITS) recent.shift();
  };
  /** Whether a commit begun after `since` touched `key`, or may have (it is no longer remembered). */
  const touchedSince = (key: string, since: number) => {
    if (pending.has(key)) return true;
    if (since === lastCommit) return false;
    const oldest = recent[0];
    if (!oldest || oldest.id > since + 1) return true;
    for (let i = recent.length - 1; i >= 0 && (recent[i] as { id: number }).id > since; i--)
      if ((recent[i] as { keys: ReadonlySet<string> }).keys.has(key)) return true;
    return false;
  };

  return {
    get(projectId, kind, subject, fromBucket, limit) {
      const entry = entries.get(keyOf(projectId, kind, subject));
      if (!entry || fromBucket < entry.floor || limit > entry.limit) return null;
      const now = version();
      if (now === null) return null;
      if (entry.version !== now) {
        entries.clear(); // another connection wrote: nothing held can be trusted
        return null;
      }
      // Newest first: the minutes from fromBucket on are a prefix (apply keeps at most MAX_WINDOW_BUCKETS).
      let minutes = 0;
      while (minutes < entry.minutes.length && (entry.minutes[minutes] as [number, number])[0] >= fromBucket) minutes++;
      return {
        total: entry.total,
        distinct: entry.distinct,
        minutes: minutes === entry.minutes.length ? entry.minutes : entry.minutes.slice(0, minutes),
        addresses: limit >= entry.addresses.length ? entry.addresses : entry.addresses.slice(0, limit),
      };
    },

    begin(projectId, kind, subject) {
      const key = keyOf(projectId, kind, subject);
      const now = version();
      return now === null || pending.has(key) ? null : { key, version: now, commit: lastCommit };
    },

    set(token, fromBucket, limit, counts, addresses) {
      if (token === null || token.version !== version() || touchedSince(token.key, token.commit)) return;
      const [first, ...rest] = counts;
      // Only a subject with a total row (the statement returns it first): anything else is read each time.
      if (!first || Number(first.bucket) !== TOTAL_BUCKET) return;
      entries.set(token.key, {
        version: token.version,
        floor: fromBucket,
        total: Number(first.validations),
        distinct: Number(first.addresses),
        minutes: rest.map((r) => [Number(r.bucket), Number(r.validations)]),
        limit,
        addresses: addresses.map((r) => ({ address: String(r.address), last_seen: Number(r.last_seen) })),
      });
    },

    committing(counts) {
      const id = ++lastCommit;
      const keys = [...new Set(counts.map((c) => keyOf(c.project_id, c.kind, c.subject)))];
      inFlight.set(id, keys);
      for (const key of keys) pending.set(key, (pending.get(key) ?? 0) + 1);
      return id;
    },

    failed: finish,

    clear: () => entries.clear(),

    apply(id, counts, addresses) {
      finish(id);
      for (const c of counts) {
        const key = keyOf(c.project_id, c.kind, c.subject);
        const entry = entries.peek(key);
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
        if (minutes.length > MAX_WINDOW_BUCKETS) minutes.length = MAX_WINDOW_BUCKETS;
      }
      for (const a of addresses) {
        const entry = entries.peek(keyOf(a.project_id, a.kind, a.subject));
        if (!entry) continue;
        const list = entry.addresses;
        const i = list.findIndex((held) => held.address === a.address);
        let item = { address: a.address, last_seen: a.last_seen };
        if (i >= 0) {
          const held = list[i] as (typeof list)[number];
          if (held.last_seen >= a.last_seen) continue; // its row keeps the later time
          list.splice(i, 1);
          item = { address: held.address, last_seen: a.last_seen };
        }
        // Into its place (usually the front: a new event is the newest); an address past the limit is not held.
        let at = 0;
        while (at < list.length && newestFirst(list[at] as (typeof list)[number], item) < 0) at++;
        if (at >= entry.limit) continue;
        list.splice(at, 0, item);
        if (list.length > entry.limit) list.length = entry.limit;
      }
    },
  };
}
