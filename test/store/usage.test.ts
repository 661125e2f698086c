import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { monthOf } from '../../src/store/usage.js';
import { testDatabases } from '../support/databases.js';

describe('monthOf', () => {
  it.each([
    [Date.UTC(2026, 0, 1, 0, 0, 0), '2026-01'],
    [Date.UTC(2026, 0, 31, 23, 59, 59, 999), '2026-01'],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), '2026-12'],
  ])('%i is in %s (UTC)', (at, month) => {
    expect(monthOf(at)).toBe(month);
  });
});

describe.each(testDatabases)('usage on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('counts per project and month, returning the new count', async () => {
    const jan = Date.UTC(2026, 0, 15);
    const feb = Date.UTC(2026, 1, 1);
    expect(await store.usage.get('prj_u', '2026-01')).toBe(0);
    expect(await store.usage.increment('prj_u', jan)).toBe(1);
    expect(await store.usage.increment('prj_u', jan)).toBe(2);
    expect(await store.usage.increment('prj_u', jan, 5)).toBe(7);
    expect(await store.usage.increment('prj_u', feb)).toBe(1);
    expect(await store.usage.increment('prj_v', jan)).toBe(1);
    expect(await store.usage.get('prj_u', '2026-01')).toBe(7);
    expect(await store.usage.get('prj_u', '2026-02')).toBe(1);
    expect(await store.usage.get('prj_v', '2026-01')).toBe(1);
  });

  it('loses no increment under concurrency', async () => {
    const at = Date.UTC(2026, 2, 3);
    await Promise.all(Array.from({ length: 50 }, () => store.usage.increment('prj_c', at)));
    expect(await store.usage.get('prj_c', '2026-03')).toBe(50);
  });
});
