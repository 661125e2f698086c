// The usage table is written with the events (issue 46, point 3): a counted event adds one to its project's
// month in the transaction that commits it, so the table always agrees with the events, a refused event adds
// nothing, and nothing is left to flush. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import type { NewEvent } from '../../src/store/events.js';
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

const event = (projectId: string, createdAt: number, counted: boolean, email = 'a@example.com'): NewEvent => ({
  projectId,
  endpoint: 'verify',
  email,
  emailLower: email.toLowerCase(),
  baseEmail: email.toLowerCase(),
  action: 'allow',
  createdAt,
  countsTowardQuota: counted,
});

describe.each(testDatabases)('usage on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  const eventsOf = async (projectId: string) => Number((await store.knex('events').where({ project_id: projectId }).count({ n: '*' }))[0]?.n);

  it('counts the counted events per project and month as they commit, and no other', async () => {
    const jan = Date.UTC(2026, 0, 15);
    const feb = Date.UTC(2026, 1, 1);
    expect(await store.usage.get('prj_u', '2026-01')).toBe(0);
    // Recorded together: one group commit holding two projects, two months and uncounted events.
    await Promise.all([
      store.events.record(event('prj_u', jan, true)),
      store.events.record(event('prj_u', jan, true)),
      store.events.record(event('prj_u', feb, true)),
      store.events.record(event('prj_u', jan, false)),
      store.events.record(event('prj_v', jan, true)),
      store.events.record({ ...event('prj_v', jan, true), countsTowardQuota: undefined }),
    ]);
    expect(await store.usage.get('prj_u', '2026-01')).toBe(2);
    expect(await store.usage.get('prj_u', '2026-02')).toBe(1);
    expect(await store.usage.get('prj_v', '2026-01')).toBe(1);
    expect(await store.usage.get('prj_v', '2026-02')).toBe(0);
  });

  it('loses no count under concurrency, and agrees with the events', async () => {
    const at = Date.UTC(2026, 2, 3);
    await Promise.all(Array.from({ length: 50 }, (_, n) => store.events.record(event('prj_c', at, true, `c${n}@example.com`))));
    expect(await store.usage.get('prj_c', '2026-03')).toBe(50);
    expect(await eventsOf('prj_c')).toBe(50);
  });

  // PostgreSQL only: SQLite stores every text, so no event can be refused there by its value.
  it.runIf(db.name === 'postgres')('adds nothing for an event the database refuses, only for those it commits beside it', async () => {
    const at = Date.UTC(2026, 3, 9);
    // PostgreSQL cannot store U+0000 in text: that event's commit fails, the others' (retried alone) do not.
    const results = await Promise.allSettled([
      store.events.record(event('prj_r', at, true, 'ok1@example.com')),
      store.events.record(event('prj_r', at, true, 'bad\u0000@example.com')),
      store.events.record(event('prj_r', at, true, 'ok2@example.com')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.usage.get('prj_r', '2026-04')).toBe(2);
    expect(await eventsOf('prj_r')).toBe(2);
  });
});
