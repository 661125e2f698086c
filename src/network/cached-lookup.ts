// What the RDAP and website lookups share: answers remembered in memory (and, for requests that
// persist, in the domain facts table, read back on a memory miss by any instance), one question in
// flight per name whatever the number of requests asking, a cap on questions at once, and a request
// that waits no longer than its deadline. Only `ask` (how to get an answer) differs.
import type { LookupResult } from '../engine/plugin.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { beforeDeadline } from './deadline.js';
import { ExpiringCache } from './expiring-cache.js';

export interface Answer<R> {
  result: LookupResult<R>;
  /** What the domain facts table keeps of it; null: never persisted (failures). */
  stored: unknown;
  /** How long it is remembered. */
  ttlMs: number;
}

export interface CachedLookupOptions<R> {
  /** The domain facts kind, e.g. `rdap:registered`. */
  kind: string;
  maxEntries: number;
  maxInFlight: number;
  /** The reason given when maxInFlight questions are running. */
  busyReason: string;
  domainFacts: Pick<DomainFacts, 'get' | 'put'> | null;
  now: () => number;
  onError: (error: unknown) => void;
  /** A stored value back as an answer; null when it is not one of ours. */
  fromStored(value: unknown): Pick<Answer<R>, 'result' | 'stored'> | null;
  /** Asks the world; never throws. */
  ask(name: string): Promise<Answer<R>>;
}

interface Cached<R> {
  result: LookupResult<R>;
  stored: unknown;
  expiresAt: number;
  /** Already in the domain facts table (read from it, or written once). */
  persisted: boolean;
}

export interface CachedLookup<R> {
  lookup(name: string, request: { persist: boolean; deadline: number }): Promise<LookupResult<R>>;
  /** Resolves when every domain-facts write started so far has finished. */
  flush(): Promise<void>;
}

const unknown = <R>(reason: string): LookupResult<R> => ({ status: 'unknown', reason });

export function createCachedLookup<R>(o: CachedLookupOptions<R>): CachedLookup<R> {
  const memory = new ExpiringCache<Cached<R>>(o.maxEntries);
  const inFlight = new Map<string, Promise<Cached<R>>>();
  const writes = new Set<Promise<void>>();

  async function readStore(name: string): Promise<Cached<R> | null> {
    if (!o.domainFacts) return null;
    try {
      const fact = await o.domainFacts.get<unknown>(name, o.kind, o.now());
      const answer = fact ? o.fromStored(fact.value) : null;
      return fact && answer ? { ...answer, expiresAt: fact.expiresAt, persisted: true } : null;
    } catch (error) {
      o.onError(error);
      return null;
    }
  }

  /** Table, then the world; every outcome goes to memory. Shared by concurrent requests. */
  async function resolve(name: string): Promise<Cached<R>> {
    const entry = (await readStore(name)) ?? (await fresh(name));
    memory.set(name, entry, entry.expiresAt);
    return entry;
  }

  async function fresh(name: string): Promise<Cached<R>> {
    const answer = await o.ask(name);
    return { result: answer.result, stored: answer.stored, expiresAt: o.now() + answer.ttlMs, persisted: false };
  }

  function persist(name: string, entry: Cached<R>): void {
    const at = o.now();
    if (!o.domainFacts || entry.persisted || entry.stored === null || entry.expiresAt <= at) return;
    entry.persisted = true;
    const write = o.domainFacts
      .put(name, o.kind, entry.stored, entry.expiresAt - at, at)
      .catch((error: unknown) => {
        entry.persisted = false;
        o.onError(error);
      })
      .finally(() => writes.delete(write));
    writes.add(write);
  }

  return {
    async lookup(name, request) {
      try {
        const at = o.now();
        // A remembered answer costs nothing, so it is given even past the deadline.
        const hit = memory.get(name, at);
        if (hit) {
          if (request.persist) persist(name, hit.value);
          return hit.value.result;
        }
        if (at >= request.deadline) return unknown('budget');
        let pending = inFlight.get(name);
        if (!pending) {
          if (inFlight.size >= o.maxInFlight) return unknown(o.busyReason);
          pending = resolve(name).finally(() => inFlight.delete(name));
          inFlight.set(name, pending);
        }
        const entry = await beforeDeadline(pending, request.deadline - at);
        if (entry === undefined) return unknown('budget');
        if (request.persist) persist(name, entry);
        return entry.result;
      } catch (error) {
        o.onError(error);
        return unknown('internal error');
      }
    },
    async flush() {
      while (writes.size > 0) await Promise.all([...writes]);
    },
  };
}
