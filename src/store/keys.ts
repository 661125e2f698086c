// api_keys: tokens are shown once at creation and stored only as SHA-256; lookups compare in
// constant time. Successful lookups are cached in memory (lru-cache, the 1,000 most recent) for at most
// CACHE_TTL_MS, so a revocation made by another process takes effect within 5 s (in this process,
// revoke clears the cache at once).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { type Project, projectFromRow } from './projects.js';
import { newId, toNullableNumber, toNumber } from './sql-values.js';

export const KEY_KINDS = ['access_token', 'private_key', 'public_key'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const PREFIXES: Readonly<Record<KeyKind, string>> = {
  access_token: 'etv_at_',
  private_key: 'etv_sk_',
  public_key: 'etv_pk_',
};

/** What generateKey makes: the kind's prefix and 32 bytes in base64url (43 characters). */
const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;

const HINT_LENGTH = 12;
/** Longer than any token we issue (prefix + 43 base64url characters); longer input is refused unhashed. */
const MAX_TOKEN_LENGTH = 128;
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 1_000;

export interface ApiKey {
  id: string;
  projectId: string;
  kind: KeyKind;
  /** The first 12 characters of the token, to tell keys apart in listings. */
  hint: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface CreatedKey {
  key: ApiKey;
  /** The plain token: returned here once, never stored. */
  token: string;
}

export interface Authenticated {
  project: Project;
  keyId: string;
}

export interface Keys {
  create(projectId: string, kind: KeyKind, now?: number): Promise<CreatedKey>;
  list(projectId: string): Promise<ApiKey[]>;
  /** Revokes a key; false when there is no such key or it was already revoked. */
  revoke(id: string, now?: number): Promise<boolean>;
  /** The project a live key of `kind` belongs to, or null (unknown, revoked or other kind). */
  authenticate(token: string, kind: KeyKind): Promise<Authenticated | null>;
  /** Forgets cached lookups (after a revocation or a project change). */
  clearCache(): void;
}

/** A new token: kind prefix + 32 random bytes, base64url. */
export function generateKey(kind: KeyKind): string {
  return PREFIXES[kind] + crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

interface KeyRow {
  id: string;
  project_id: string;
  kind: KeyKind;
  hash: string;
  hint: string;
  created_at: unknown;
  revoked_at: unknown;
}

function keyFromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    hint: row.hint,
    createdAt: toNumber(row.created_at),
    revokedAt: toNullableNumber(row.revoked_at),
  };
}

interface CachedKey {
  kind: KeyKind;
  result: Authenticated;
}

export function createKeys(knex: Knex): Keys {
  // Date.now, not performance.now: the clock the rest of the store reads (and tests move); ttlResolution 0
  // so every check reads it.
  const cache = new LRUCache<string, CachedKey>({ max: CACHE_MAX_ENTRIES, ttl: CACHE_TTL_MS, perf: { now: () => Date.now() }, ttlResolution: 0 });

  return {
    async create(projectId, kind, now = Date.now()) {
      const token = generateKey(kind);
      const key: ApiKey = { id: newId('key'), projectId, kind, hint: token.slice(0, HINT_LENGTH), createdAt: now, revokedAt: null };
      await knex('api_keys').insert({
        id: key.id,
        project_id: projectId,
        kind,
        hash: hashToken(token),
        hint: key.hint,
        created_at: now,
        revoked_at: null,
      });
      return { key, token };
    },

    async list(projectId) {
      const rows = await knex<KeyRow>('api_keys')
        .select('id', 'project_id', 'kind', 'hash', 'hint', 'created_at', 'revoked_at')
        .where({ project_id: projectId })
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      return rows.map(keyFromRow);
    },

    async revoke(id, now = Date.now()) {
      const changed = await knex('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
      cache.clear();
      return changed > 0;
    },

    async authenticate(token, kind) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
      // A token that is not of this kind's shape cannot be one of its keys: refused without a lookup, so
      // guesses cost no database work (the shape is public; nothing secret is compared here).
      if (!token.startsWith(PREFIXES[kind]) || !TOKEN_BODY.test(token.slice(PREFIXES[kind].length))) return null;
      const hash = hashToken(token);
      const cached = cache.get(hash);
      if (cached) return cached.kind === kind ? cached.result : null;

      const row = await knex('api_keys as k')
        .join('projects as p', 'p.id', 'k.project_id')
        .select(
          'k.id as key_id',
          'k.kind as key_kind',
          'k.hash as key_hash',
          'k.revoked_at as key_revoked_at',
          'p.id',
          'p.name',
          'p.sandbox',
          'p.policy',
          'p.policy_source',
          'p.allowed_origins',
          'p.lists_revision',
          'p.monthly_quota',
          'p.created_at',
        )
        .where('k.hash', hash)
        .first();
      if (!row) return null;
      // The index lookup already matched; comparing the digests in constant time keeps the last step
      // free of early-exit timing whatever the database's own comparison does.
      const stored = Buffer.from(String(row.key_hash), 'hex');
      const given = Buffer.from(hash, 'hex');
      if (stored.length !== given.length || !crypto.timingSafeEqual(stored, given)) return null;
      if (row.key_revoked_at !== null && row.key_revoked_at !== undefined) return null;

      const result: Authenticated = { project: projectFromRow(row), keyId: String(row.key_id) };
      cache.set(hash, { kind: row.key_kind as KeyKind, result });
      return row.key_kind === kind ? result : null;
    },

    clearCache() {
      cache.clear();
    },
  };
}
