// domain_facts: cached per-domain results (DNS, domain age, website) with an expiry, shared by all
// projects. Values are stored as JSON text, so a cached `null` (e.g. "no age known") is a hit too.
import type { Knex } from 'knex';
import { type BackgroundWrites, backgroundWrites } from './background-writes.js';
import { toNumber } from './sql-values.js';

export interface DomainFact<T = unknown> {
  value: T;
  updatedAt: number;
  expiresAt: number;
}

export interface DomainFacts {
  /** The fact when present and not expired at `now`; null otherwise. */
  get<T = unknown>(domain: string, kind: string, now?: number): Promise<DomainFact<T> | null>;
  /** Stores (or replaces) a fact valid for `ttlMs` from `now`. */
  put(domain: string, kind: string, value: unknown, ttlMs: number, now?: number): Promise<void>;
  /** Deletes facts expired at `now`; returns how many. */
  pruneExpired(now?: number): Promise<number>;
}

interface DomainFactRow {
  domain: string;
  kind: string;
  value: string;
  expires_at: unknown;
  updated_at: unknown;
}

/** `write`: how the facts are stored (background-writes.ts). */
export function createDomainFacts(knex: Knex, write: BackgroundWrites = backgroundWrites(knex, null)): DomainFacts {
  return {
    async get<T>(domain: string, kind: string, now = Date.now()) {
      const row = (await knex<DomainFactRow>('domain_facts')
        .select('value', 'expires_at', 'updated_at')
        .where({ domain: domain.toLowerCase(), kind })
        .andWhere('expires_at', '>', now)
        .first()) as DomainFactRow | undefined;
      if (!row) return null;
      return { value: JSON.parse(row.value) as T, updatedAt: toNumber(row.updated_at), expiresAt: toNumber(row.expires_at) };
    },

    async put(domain, kind, value, ttlMs, now = Date.now()) {
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError('a domain fact value must be JSON-serialisable');
      const row = { domain: domain.toLowerCase(), kind, value: json, expires_at: now + ttlMs, updated_at: now };
      await write([knex('domain_facts').insert(row).onConflict(['domain', 'kind']).merge(['value', 'expires_at', 'updated_at'])]);
    },

    async pruneExpired(now = Date.now()) {
      return knex('domain_facts').where('expires_at', '<=', now).del();
    },
  };
}
