// api_keys: tokens are shown once at creation and stored only as SHA-256; lookups compare in
// constant time. Lookups are cached in memory (lru-cache, the 1,000 most recent keys found, revoked ones
// included, and apart the 1,000 most recent hashes not found) for at most CACHE_TTL_MS, so a revocation
// made by another process takes effect within 5 s (in this process, revoke clears the cache at once), and
// a client retrying a stale key costs a hash, not a query. A revocation may be scheduled (`rotate`):
// `revoked_at` in the future, the key working until then.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { type BackgroundWrites, backgroundWrites } from './background-writes.js';
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
  /** What or who uses the key, as given at creation; null when none was. */
  label: string | null;
  createdAt: number;
  /** Refused from this time on; a time in the future is a scheduled revocation (key rotation). */
  revokedAt: number | null;
  /** Last successful authentication, as running services record it (at most once a minute); null: never. */
  lastUsedAt: number | null;
}

export interface NewKeyOptions {
  now?: number;
  label?: string | null;
}

export interface Rotation {
  created: CreatedKey;
  /** The project's other live keys of the kind, each now revoked at `now + graceMs` (or earlier, if it already was). */
  retiring: ApiKey[];
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
  create(projectId: string, kind: KeyKind, options?: NewKeyOptions): Promise<CreatedKey>;
  /**
   * A new key of `kind` (labelled as given, else as the newest key it replaces) and, in the same transaction,
   * every other live key of that kind scheduled for revocation `graceMs` from `now`.
   */
  rotate(projectId: string, kind: KeyKind, options: { graceMs: number; now?: number; label?: string | null }): Promise<Rotation>;
  list(projectId: string): Promise<ApiKey[]>;
  /** Revokes a key now (a scheduled revocation too); false when there is no such key or it is already revoked. */
  revoke(id: string, now?: number): Promise<boolean>;
  /** The project a live key of `kind` belongs to at `now`, or null (unknown, revoked or other kind). */
  authenticate(token: string, kind: KeyKind, now?: number): Promise<Authenticated | null>;
  /** Records when keys were last used (key id → time); a key's date only moves forward. */
  markUsed(uses: ReadonlyMap<string, number>): Promise<void>;
  /** Forgets cached lookups (after a revocation or a project change). */
  clearCache(): void;
}

/** The kind a token says it is by its public prefix (nothing is looked up), or null when it has none of ours. */
export function kindOfToken(token: string): KeyKind | null {
  return KEY_KINDS.find((kind) => token.startsWith(PREFIXES[kind])) ?? null;
}

/** A new token: kind prefix + 32 random bytes, base64url. */
export function generateKey(kind: KeyKind): string {
  return PREFIXES[kind] + crypto.randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  // One-shot (crypto.hash): a third of createHash().update().digest()'s cost, and no Hash object per request.
  return crypto.hash('sha256', token, 'hex');
}

interface KeyRow {
  id: string;
  project_id: string;
  kind: KeyKind;
  hint: string;
  label: string | null;
  created_at: unknown;
  revoked_at: unknown;
  last_used_at: unknown;
}

const KEY_COLUMNS = ['id', 'project_id', 'kind', 'hint', 'label', 'created_at', 'revoked_at', 'last_used_at'] as const;

function keyFromRow(row: KeyRow): ApiKey {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    hint: row.hint,
    label: row.label ?? null,
    createdAt: toNumber(row.created_at),
    revokedAt: toNullableNumber(row.revoked_at),
    lastUsedAt: toNullableNumber(row.last_used_at),
  };
}

interface CachedKey {
  kind: KeyKind;
  result: Authenticated;
  revokedAt: number | null;
}

const isRevoked = (revokedAt: number | null, now: number): boolean => revokedAt !== null && revokedAt <= now;

/** Inserts a new key through `knex` (a transaction, or not). */
async function insertKey(knex: Knex, projectId: string, kind: KeyKind, now: number, label: string | null): Promise<CreatedKey> {
  const token = generateKey(kind);
  const key: ApiKey = { id: newId('key'), projectId, kind, hint: token.slice(0, HINT_LENGTH), label, createdAt: now, revokedAt: null, lastUsedAt: null };
  await knex('api_keys').insert({
    id: key.id,
    project_id: projectId,
    kind,
    hash: hashToken(token),
    hint: key.hint,
    label,
    created_at: now,
    revoked_at: null,
  });
  return { key, token };
}

/** `write`: how a key's last use is stored (background-writes.ts). */
export function createKeys(knex: Knex, write: BackgroundWrites = backgroundWrites(knex, null)): Keys {
  // Date.now, not performance.now: the clock the rest of the store reads (and tests move); ttlResolution 0
  // so every check reads it.
  const cacheOptions = { max: CACHE_MAX_ENTRIES, ttl: CACHE_TTL_MS, perf: { now: () => Date.now() }, ttlResolution: 0 };
  const cache = new LRUCache<string, CachedKey>(cacheOptions);
  // Apart from the keys found, so a client trying many unknown tokens cannot push valid keys out.
  const notFound = new LRUCache<string, true>(cacheOptions);
  const forget = () => {
    cache.clear();
    notFound.clear();
  };

  return {
    async create(projectId, kind, options = {}) {
      const created = await insertKey(knex, projectId, kind, options.now ?? Date.now(), options.label ?? null);
      notFound.clear();
      return created;
    },

    async rotate(projectId, kind, options) {
      const now = options.now ?? Date.now();
      const revokeAt = now + options.graceMs;
      const rotation = await knex.transaction(async (trx) => {
        const live = (
          await trx<KeyRow>('api_keys')
            .select(...KEY_COLUMNS)
            .where({ project_id: projectId, kind })
            .andWhere((q) => q.whereNull('revoked_at').orWhere('revoked_at', '>', now))
            .orderBy([
              { column: 'created_at', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
        ).map(keyFromRow);
        const label = options.label ?? live[0]?.label ?? null;
        const created = await insertKey(trx, projectId, kind, now, label);
        const retiring: ApiKey[] = [];
        for (const old of live) {
          // A revocation already due sooner stays as it is.
          const at = old.revokedAt !== null && old.revokedAt < revokeAt ? old.revokedAt : revokeAt;
          if (at !== old.revokedAt) await trx('api_keys').where({ id: old.id }).update({ revoked_at: at });
          retiring.push({ ...old, revokedAt: at });
        }
        return { created, retiring };
      });
      forget();
      return rotation;
    },

    async list(projectId) {
      const rows = await knex<KeyRow>('api_keys')
        .select(...KEY_COLUMNS)
        .where({ project_id: projectId })
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      return rows.map(keyFromRow);
    },

    async revoke(id, now = Date.now()) {
      const changed = await knex('api_keys')
        .where({ id })
        .andWhere((q) => q.whereNull('revoked_at').orWhere('revoked_at', '>', now))
        .update({ revoked_at: now });
      forget();
      return changed > 0;
    },

    async markUsed(uses) {
      if (uses.size === 0) return;
      await write(
        [...uses].map(([id, at]) =>
          knex('api_keys')
            .where({ id })
            .andWhere((w) => w.whereNull('last_used_at').orWhere('last_used_at', '<', at))
            .update({ last_used_at: at }),
        ),
      );
    },

    async authenticate(token, kind, now = Date.now()) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
      // A token that is not of this kind's shape cannot be one of its keys: refused without a lookup, so
      // guesses cost no database work (the shape is public; nothing secret is compared here).
      if (!token.startsWith(PREFIXES[kind]) || !TOKEN_BODY.test(token.slice(PREFIXES[kind].length))) return null;
      const hash = hashToken(token);
      const cached = cache.get(hash);
      if (cached) return cached.kind === kind && !isRevoked(cached.revokedAt, now) ? cached.result : null;
      if (notFound.has(hash)) return null;

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
          'p.shares_reputation',
          'p.created_at',
        )
        .where('k.hash', hash)
        .first();
      if (!row) {
        notFound.set(hash, true);
        return null;
      }
      // The index lookup already matched; comparing the digests in constant time keeps the last step
      // free of early-exit timing whatever the database's own comparison does.
      const stored = Buffer.from(String(row.key_hash), 'hex');
      const given = Buffer.from(hash, 'hex');
      if (stored.length !== given.length || !crypto.timingSafeEqual(stored, given)) return null;
      const revokedAt = toNullableNumber(row.key_revoked_at);
      const result: Authenticated = { project: projectFromRow(row), keyId: String(row.key_id) };
      cache.set(hash, { kind: row.key_kind as KeyKind, result, revokedAt });
      return row.key_kind === kind && !isRevoked(revokedAt, now) ? result : null;
    },

    clearCache() {
      forget();
    },
  };
}
