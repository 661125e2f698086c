// policy_revisions (src/store/policy-revisions.ts): a revision's text stored once, whoever remembers it first,
// on a SQLite file (written by its writer thread) and on PostgreSQL, two instances at once included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { openSecondStore, testDatabases } from '../support/databases.js';

const POLICY = { revision: '0123456789abcdef', name: 'strict-signup', source: 'version: "1.0"\ndefault_action: allow\n' };

describe.each(testDatabases)('policy revisions on $name', (db) => {
  let store: Store;
  let second: Store;
  beforeAll(async () => {
    store = await db.open();
    second = await openSecondStore(store);
  });
  afterAll(async () => {
    await second.close();
    await store.close();
  });

  it('keeps the first text stored under a revision; remembering it again, from two instances at once, changes nothing', async () => {
    expect(await store.policyRevisions.get(POLICY.revision)).toBeNull();
    await Promise.all([store.policyRevisions.remember(POLICY, 1_000), second.policyRevisions.remember({ ...POLICY, name: 'renamed' }, 2_000)]);
    await store.policyRevisions.remember(POLICY, 3_000);
    const kept = await store.policyRevisions.get(POLICY.revision);
    expect(kept?.source).toBe(POLICY.source);
    expect([1_000, 2_000]).toContain(kept?.createdAt);
    expect(await second.policyRevisions.get(POLICY.revision)).toEqual(kept);
    expect(Number((await store.knex('policy_revisions').count({ n: '*' }))[0]?.n)).toBe(1);
  });

  it('refuses a revision without its text', async () => {
    await expect(store.policyRevisions.remember({ revision: '', name: 'x', source: 'y' })).rejects.toThrow(TypeError);
  });
});
