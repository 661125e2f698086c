import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { testDatabases } from '../support/databases.js';

const NOW = 1_800_000_000_000;

describe.each(testDatabases)('domain facts on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('returns a stored fact until it expires', async () => {
    await store.domainFacts.put('Example.COM', 'mx', { count: 2, hosts: ['a', 'b'] }, 60_000, NOW);
    const fact = { value: { count: 2, hosts: ['a', 'b'] }, updatedAt: NOW, expiresAt: NOW + 60_000 };
    expect(await store.domainFacts.get('example.com', 'mx', NOW)).toEqual(fact);
    expect(await store.domainFacts.get('EXAMPLE.com', 'mx', NOW + 59_999)).toEqual(fact);
    expect(await store.domainFacts.get('example.com', 'mx', NOW + 60_000)).toBeNull();
    expect(await store.domainFacts.get('example.com', 'age', NOW)).toBeNull();
    const row = await store.knex('domain_facts').where({ domain: 'example.com', kind: 'mx' }).first();
    expect(JSON.parse(row.value)).toEqual({ count: 2, hosts: ['a', 'b'] });
  });

  it('replaces a fact on put', async () => {
    await store.domainFacts.put('replace.test', 'age', 100, 1_000, NOW);
    await store.domainFacts.put('replace.test', 'age', 200, 5_000, NOW + 10);
    expect(await store.domainFacts.get('replace.test', 'age', NOW + 2_000)).toEqual({ value: 200, updatedAt: NOW + 10, expiresAt: NOW + 5_010 });
    expect(await store.knex('domain_facts').where({ domain: 'replace.test' })).toHaveLength(1);
  });

  it('tells a cached null from a miss', async () => {
    await store.domainFacts.put('unknown-age.test', 'age', null, 1_000, NOW);
    expect(await store.domainFacts.get('unknown-age.test', 'age', NOW)).toEqual({ value: null, updatedAt: NOW, expiresAt: NOW + 1_000 });
  });

  it('refuses a value that is not JSON', async () => {
    await expect(store.domainFacts.put('x.test', 'mx', undefined, 1_000, NOW)).rejects.toThrow(/JSON/);
  });

  it('prunes expired facts only', async () => {
    await store.domainFacts.put('old.test', 'mx', 1, 10, NOW);
    await store.domainFacts.put('fresh.test', 'mx', 1, 10_000_000, NOW);
    const pruned = await store.domainFacts.pruneExpired(NOW + 1_000_000);
    expect(pruned).toBeGreaterThanOrEqual(1);
    expect(await store.knex('domain_facts').where({ domain: 'old.test' })).toHaveLength(0);
    expect(await store.domainFacts.get('fresh.test', 'mx', NOW + 1_000_000)).not.toBeNull();
  });
});
