// What every network lookup shares (DNS, RDAP, the website probe): answers remembered in memory
// (least recently used go first, each for its own TTL on the lookup's clock) and, for requests that
// persist, in the domain facts table, read back on a memory miss by any instance; one question in
// flight per (kind, name) whatever the number of requests asking; a cap on questions at once; and a
// request that stops waiting when its budget signal aborts, while the question goes on and still
// fills the caches for the next request. Only `ask` (how to get an answer) differs.
import { LRUCache } from 'lru-cache';
import { untilAborted } from '../abort.js';
import { lookups } from '../metrics.js';
import type { DomainFacts } from '../store/domain-facts.js';

/** What asking the world gave. */
export interface Asked<A> {
  answer: A;
  /** What the domain facts table keeps of it; null: never persisted (failures). */
  stored: unknown;
  /** How long it is remembered; 0 or less: not at all, the next request asks again. */
  ttlMs: number;
}

export interface LookupRequest {
  /** Write answers to the domain facts table (false for soft_check requests). */
  persist: boolean;
  /** The request's network budget: once it aborts, a lookup not yet answered gives up (reason `budget`). */
  signal: AbortSignal;
}

/** `K`: the domain facts kinds asked about (`dns:mx`, `rdap:registered` …); `A`: the answer. */
export interface CachedLookupOptions<K extends string, A> {
  maxEntries: number;
  maxInFlight: number;
  /** The reason given when maxInFlight questions are running. */
  busyReason: string;
  domainFacts: Pick<DomainFacts, 'get' | 'put'> | null;
  /** How long a table read is waited for before the world is asked instead; absent: until it ends. */
  tableWaitMs?: number;
  /** Clock for TTLs (ms since the epoch). */
  now: () => number;
  /** Told about domain-facts read/write failures and internal errors (the lookup goes on). */
  onError: (error: unknown) => void;
  /** The answer when none could be had: budget spent, too busy, internal error. */
  unanswered(reason: string): A;
  /** A stored value back as an answer; null when it is not one of ours. */
  fromStored(value: unknown, kind: K): Pick<Asked<A>, 'answer' | 'stored'> | null;
  /** Asks the world; never throws. */
  ask(name: string, kind: K): Promise<Asked<A>>;
}

export interface CachedLookup<K extends string, A> {
  lookup(kind: K, name: string, request: LookupRequest): Promise<A>;
  /** Resolves when every domain-facts write started so far has finished. */
  flush(): Promise<void>;
}

interface Remembered<A> {
  answer: A;
  stored: unknown;
  expiresAt: number;
  /** Already in the domain facts table (read from it, or written once). */
  persisted: boolean;
  /** Where the answer came from when it was first had (for the cache metrics). */
  from: 'table' | 'world';
}

export function createCachedLookup<K extends string, A>(o: CachedLookupOptions<K, A>): CachedLookup<K, A> {
  // ttlResolution 0: every expiry check reads `now`, so a test's clock is never seen late.
  const memory = new LRUCache<string, Remembered<A>>({ max: o.maxEntries, perf: { now: () => o.now() }, ttlResolution: 0 });
  const inFlight = new Map<string, Promise<Remembered<A>>>();
  const table = tableWrites(o);

  function remember(key: string, entry: Remembered<A>): void {
    const ttl = entry.expiresAt - o.now();
    // lru-cache reads a ttl of 0 as "forever": an answer already expired is simply not kept.
    if (ttl > 0) memory.set(key, entry, { ttl });
  }

  async function readTable(kind: K, name: string): Promise<Remembered<A> | null> {
    if (!o.domainFacts) return null;
    try {
      const read = o.domainFacts.get<unknown>(name, kind, o.now());
      const fact = o.tableWaitMs === undefined ? await read : await untilAborted(read, AbortSignal.timeout(o.tableWaitMs));
      const answer = fact ? o.fromStored(fact.value, kind) : null;
      return fact && answer ? { ...answer, expiresAt: fact.expiresAt, persisted: true, from: 'table' } : null;
    } catch (error) {
      o.onError(error);
      return null;
    }
  }

  /** Table, then the world; the outcome goes to memory. Shared by concurrent requests. */
  async function resolve(kind: K, name: string, key: string): Promise<Remembered<A>> {
    const entry = (await readTable(kind, name)) ?? (await askWorld(kind, name));
    remember(key, entry);
    return entry;
  }

  async function askWorld(kind: K, name: string): Promise<Remembered<A>> {
    const asked = await o.ask(name, kind);
    return { answer: asked.answer, stored: asked.stored, expiresAt: o.now() + asked.ttlMs, persisted: false, from: 'world' };
  }

  /** The question in flight for `key` (joined: asked by another request), started when there is none; null when too many are running. */
  function question(kind: K, name: string, key: string): { pending: Promise<Remembered<A>>; joined: boolean } | null {
    const running = inFlight.get(key);
    if (running) return { pending: running, joined: true };
    if (inFlight.size >= o.maxInFlight) return null;
    const started = resolve(kind, name, key).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return { pending: started, joined: false };
  }

  function unanswered(kind: K, reason: string): A {
    lookups.inc({ kind, outcome: 'unanswered' });
    return o.unanswered(reason);
  }

  function answered(kind: K, name: string, entry: Remembered<A>, request: LookupRequest): A {
    if (request.persist) table.persist(kind, name, entry);
    return entry.answer;
  }

  return {
    async lookup(kind, name, request) {
      try {
        const key = `${kind} ${name}`;
        // A remembered answer costs nothing, so it is given even once the budget is spent.
        const hit = memory.get(key);
        if (hit) {
          lookups.inc({ kind, outcome: 'hit' });
          return answered(kind, name, hit, request);
        }
        if (request.signal.aborted) return unanswered(kind, 'budget');
        const asked = question(kind, name, key);
        if (asked === null) return unanswered(kind, o.busyReason);
        const entry = await untilAborted(asked.pending, request.signal);
        if (entry === undefined) return unanswered(kind, 'budget');
        lookups.inc({ kind, outcome: asked.joined ? 'joined' : entry.from === 'table' ? 'table' : 'miss' });
        return answered(kind, name, entry, request);
      } catch (error) {
        o.onError(error);
        return unanswered(kind, 'internal error');
      }
    },
    flush: () => table.flush(),
  };
}

/** Answers written to the domain facts table, each once and only while it lives; `flush` waits for them. */
function tableWrites<K extends string, A>({ domainFacts, now, onError }: CachedLookupOptions<K, A>) {
  const writes = new Set<Promise<void>>();
  return {
    persist(kind: K, name: string, entry: Remembered<A>): void {
      const at = now();
      if (!domainFacts || entry.persisted || entry.stored === null || entry.expiresAt <= at) return;
      entry.persisted = true;
      const write = domainFacts
        .put(name, kind, entry.stored, entry.expiresAt - at, at)
        .catch((error: unknown) => {
          entry.persisted = false;
          onError(error);
        })
        .finally(() => writes.delete(write));
      writes.add(write);
    },
    async flush(): Promise<void> {
      while (writes.size > 0) await Promise.all([...writes]);
    },
  };
}
