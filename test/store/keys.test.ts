import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { generateKey, hashToken, KEY_KINDS } from '../../src/store/keys.js';
import type { Project } from '../../src/store/projects.js';
import { openSecondStore, testDatabases } from '../support/databases.js';

describe('generateKey', () => {
  it.each([
    ['access_token', 'etv_at_'],
    ['private_key', 'etv_sk_'],
    ['public_key', 'etv_pk_'],
  ] as const)('%s tokens start with %s and carry 32 random bytes', (kind, prefix) => {
    const a = generateKey(kind);
    const b = generateKey(kind);
    expect(a.startsWith(prefix)).toBe(true);
    expect(a).toMatch(/^etv_(at|sk|pk)_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(prefix.length), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

/** Every text value in every table, to prove the plain token was stored nowhere. */
async function everyStoredValue(store: Store): Promise<string> {
  const parts: string[] = [];
  for (const table of ['projects', 'api_keys', 'events', 'domain_facts', 'usage']) {
    for (const row of (await store.knex(table).select('*')) as object[]) parts.push(JSON.stringify(Object.values(row)));
  }
  return parts.join('\n');
}

describe.each(testDatabases)('keys on $name', (db) => {
  let store: Store;
  let project: Project;
  let other: Project;

  beforeAll(async () => {
    store = await db.open();
    project = await store.projects.create({ name: 'keys', policy: 'default' });
    other = await store.projects.create({ name: 'other', policy: 'default' });
  });
  afterAll(() => store.close());
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('returns the token once and stores only its SHA-256 and a 12-character hint', async () => {
    const { key, token } = await store.keys.create(project.id, 'access_token', { now: 1_700_000_000_000, label: 'checkout' });
    expect(key).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
      projectId: project.id,
      kind: 'access_token',
      hint: token.slice(0, 12),
      label: 'checkout',
      createdAt: 1_700_000_000_000,
      revokedAt: null,
      lastUsedAt: null,
    });
    const row = await store.knex('api_keys').where({ id: key.id }).first();
    expect(row.hash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    const everything = await everyStoredValue(store);
    expect(everything).toContain(row.hash);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(12));
  });

  it('authenticates a live key of the right kind, through a constant-time comparison', async () => {
    const { key, token } = await store.keys.create(project.id, 'private_key');
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    expect(await store.keys.authenticate(token, 'private_key')).toEqual({ project, keyId: key.id });
    expect(compare).toHaveBeenCalledTimes(1);
    const [stored, given] = compare.mock.calls[0] as [Buffer, Buffer];
    expect(stored.toString('hex')).toBe(hashToken(token));
    expect(given.toString('hex')).toBe(hashToken(token));
  });

  it.each(KEY_KINDS)('refuses a %s used as another kind', async (kind) => {
    const { token } = await store.keys.create(project.id, kind);
    for (const asKind of KEY_KINDS) {
      const result = await store.keys.authenticate(token, asKind);
      if (asKind === kind) expect(result?.project.id).toBe(project.id);
      else expect(result, `${kind} as ${asKind}`).toBeNull();
    }
  });

  it.each([
    ['an unknown token', () => generateKey('access_token')],
    ['an empty token', () => ''],
    ['a tampered token', () => `etv_at_${'A'.repeat(43)}`],
    ['an overlong token', () => `etv_at_${'A'.repeat(500)}`],
  ])('refuses %s', async (_label, token) => {
    expect(await store.keys.authenticate(token(), 'access_token')).toBeNull();
  });

  it('refuses a token not of the kind’s shape without asking the database (a guess costs no query)', async () => {
    const other = await store.keys.create(project.id, 'private_key');
    await store.knex.schema.renameTable('api_keys', 'api_keys_away');
    try {
      for (const token of ['etv_at_short', `etv_at_${'A'.repeat(42)}!`, `xyz_at_${'A'.repeat(43)}`, other.token]) {
        expect(await store.keys.authenticate(token, 'access_token'), token).toBeNull();
      }
      // A token of the right shape is looked up (and here the table is away).
      await expect(store.keys.authenticate(`etv_at_${'B'.repeat(43)}`, 'access_token')).rejects.toThrow();
    } finally {
      await store.knex.schema.renameTable('api_keys_away', 'api_keys');
    }
  });

  it('refuses a revoked key at once in this process, and revokes only once', async () => {
    const { key, token } = await store.keys.create(project.id, 'access_token');
    expect(await store.keys.authenticate(token, 'access_token')).not.toBeNull(); // now cached
    expect(await store.keys.revoke(key.id, 1_700_000_100_000)).toBe(true);
    expect(await store.keys.authenticate(token, 'access_token')).toBeNull();
    expect(await store.keys.revoke(key.id)).toBe(false);
    expect(await store.keys.revoke('key_missing')).toBe(false);
    const listed = await store.keys.list(project.id);
    expect(listed.find((k) => k.id === key.id)?.revokedAt).toBe(1_700_000_100_000);
  });

  it('lists a project’s keys with hint, kind and dates, never another project’s', async () => {
    const { key } = await store.keys.create(other.id, 'public_key', { now: 1_700_000_000_500 });
    expect(await store.keys.list(other.id)).toEqual([key]);
    const mine = await store.keys.list(project.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((k) => k.projectId === project.id)).toBe(true);
    expect(mine.every((k) => !('hash' in k))).toBe(true);
  });

  it('sees a revocation made by another process within 5 s (the cache lifetime)', async () => {
    const elsewhere = await openSecondStore(store);
    try {
      const { key, token } = await store.keys.create(project.id, 'access_token');
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(1_800_000_000_000);
      expect(await store.keys.authenticate(token, 'access_token')).not.toBeNull();
      await elsewhere.keys.revoke(key.id);
      vi.setSystemTime(1_800_000_004_000);
      expect(await store.keys.authenticate(token, 'access_token')).not.toBeNull(); // still cached
      vi.setSystemTime(1_800_000_005_001);
      expect(await store.keys.authenticate(token, 'access_token')).toBeNull();
    } finally {
      await elsewhere.close();
    }
  });

  it('forgets cached projects when a project changes', async () => {
    const { token } = await store.keys.create(project.id, 'access_token');
    expect((await store.keys.authenticate(token, 'access_token'))?.project.policy).toBe('default');
    await store.projects.update(project.id, { policy: 'strict' });
    expect((await store.keys.authenticate(token, 'access_token'))?.project.policy).toBe('strict');
    await store.projects.update(project.id, { policy: 'default' });
  });
  it('rotates: a new key now, the old ones of that kind refused from the end of the grace, an earlier revocation kept', async () => {
    const rotated = await store.projects.create({ name: 'rotated', policy: 'default' });
    const t0 = 1_800_000_000_000;
    const first = await store.keys.create(rotated.id, 'private_key', { now: t0, label: 'backend' });
    const second = await store.keys.create(rotated.id, 'private_key', { now: t0 + 1 });
    const publicKey = await store.keys.create(rotated.id, 'public_key', { now: t0 });
    await store.keys.revoke(second.key.id, t0 + 2); // already revoked: not part of the rotation
    expect(await store.keys.authenticate(first.token, 'private_key', t0 + 3)).not.toBeNull(); // cached from here on

    const hour = 3_600_000;
    const { created, retiring } = await store.keys.rotate(rotated.id, 'private_key', { graceMs: hour, now: t0 + 10 });
    expect(created.key).toMatchObject({ kind: 'private_key', label: 'backend', revokedAt: null });
    expect(retiring).toEqual([expect.objectContaining({ id: first.key.id, revokedAt: t0 + 10 + hour })]);
    expect(await store.keys.authenticate(first.token, 'private_key', t0 + 10 + hour - 1)).not.toBeNull();
    expect(await store.keys.authenticate(first.token, 'private_key', t0 + 10 + hour)).toBeNull();
    expect(await store.keys.authenticate(created.token, 'private_key', t0 + 10 + hour)).not.toBeNull();
    expect(await store.keys.authenticate(publicKey.token, 'public_key', t0 + 10 + hour)).not.toBeNull();

    // A second rotation with a longer grace does not postpone the first key's end; the new label is taken.
    const again = await store.keys.rotate(rotated.id, 'private_key', { graceMs: 2 * hour, now: t0 + 20, label: 'backend-2' });
    expect(again.created.key.label).toBe('backend-2');
    expect(new Map(again.retiring.map((k) => [k.id, k.revokedAt]))).toEqual(
      new Map([
        [created.key.id, t0 + 20 + 2 * hour],
        [first.key.id, t0 + 10 + hour],
      ]),
    );
    // key revoke ends a scheduled revocation's grace at once.
    expect(await store.keys.revoke(created.key.id, t0 + 30)).toBe(true);
    expect(await store.keys.authenticate(created.token, 'private_key', t0 + 31)).toBeNull();
    expect((await store.keys.list(rotated.id)).find((k) => k.id === created.key.id)?.revokedAt).toBe(t0 + 30);
  });

  it('records the last use of keys, only ever forward', async () => {
    const { key } = await store.keys.create(project.id, 'public_key');
    await store.keys.markUsed(new Map([[key.id, 1_900_000_000_000]]));
    await store.keys.markUsed(new Map([[key.id, 1_899_000_000_000]])); // a slower instance's older use
    expect((await store.keys.list(project.id)).find((k) => k.id === key.id)?.lastUsedAt).toBe(1_900_000_000_000);
  });

  it('makes one shared fingerprint key, even for instances asking at once', async () => {
    const elsewhere = await openSecondStore(store);
    try {
      const [a, b] = await Promise.all([store.fingerprintKeys.shared(), elsewhere.fingerprintKeys.shared()]);
      expect(a.key).toHaveLength(32);
      expect(b).toEqual(a);
      expect(await store.fingerprintKeys.shared()).toEqual(a);
    } finally {
      await elsewhere.close();
    }
  });
});
