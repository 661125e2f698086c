// The DNS/RDAP/website cache counts each lookup by outcome (hit, table, miss, joined, unanswered) in
// email_trust_lookup_cache_total, so the hit ratio is hit / all lookups of a kind.
import { describe, expect, it } from 'vitest';
import { lookups } from '../../src/metrics.js';
import { createCachedLookup } from '../../src/network/cached-lookup.js';

/** The counter's value for `kind` and `outcome`. */
async function counted(kind: string, outcome: string): Promise<number> {
  const { values } = await lookups.get();
  return values.find((v) => v.labels.kind === kind && v.labels.outcome === outcome)?.value ?? 0;
}

function lookupWith(stored: Record<string, unknown>, kind: string) {
  let asked = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const cache = createCachedLookup<string, string>({
    maxEntries: 100,
    maxInFlight: 1,
    busyReason: 'busy',
    domainFacts: {
      get: async <T>(name: string) => (name in stored ? ({ value: stored[name] as T, expiresAt: Date.now() + 60_000 } as never) : null),
      put: async () => undefined,
    },
    now: Date.now,
    onError: () => undefined,
    unanswered: (reason) => `unanswered: ${reason}`,
    fromStored: (value) => (typeof value === 'string' ? { answer: value, stored: value } : null),
    async ask(name) {
      asked += 1;
      await gate;
      return { answer: `answer for ${name}`, stored: null, ttlMs: 60_000 };
    },
  });
  return { cache, release, asked: () => asked, kind };
}

describe('lookup cache metrics', () => {
  it('counts a miss, a joined question, a busy refusal, hits, a table answer and a spent budget', async () => {
    const kind = `test:${Math.random().toString(36).slice(2)}`;
    const { cache, release } = lookupWith({ 'stored.test': 'from the table' }, kind);
    const live = { persist: false, signal: new AbortController().signal };
    const first = cache.lookup(kind, 'a.test', live);
    const second = cache.lookup(kind, 'a.test', live); // the same question, in flight: joined
    expect(await cache.lookup(kind, 'b.test', live)).toBe('unanswered: busy'); // maxInFlight 1
    release();
    expect(await first).toBe('answer for a.test');
    expect(await second).toBe('answer for a.test');
    expect(await cache.lookup(kind, 'a.test', live)).toBe('answer for a.test');
    expect(await cache.lookup(kind, 'a.test', live)).toBe('answer for a.test');
    expect(await cache.lookup(kind, 'stored.test', live)).toBe('from the table');
    expect(await cache.lookup(kind, 'c.test', { persist: false, signal: AbortSignal.abort() })).toBe('unanswered: budget');
    expect({
      miss: await counted(kind, 'miss'),
      joined: await counted(kind, 'joined'),
      hit: await counted(kind, 'hit'),
      table: await counted(kind, 'table'),
      unanswered: await counted(kind, 'unanswered'),
    }).toEqual({ miss: 1, joined: 1, hit: 2, table: 1, unanswered: 2 });
  });
});
