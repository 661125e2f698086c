// Stored decisions read back (src/store/decisions.ts), on a SQLite file (its rows committed by the writer
// thread) and on PostgreSQL: what an event stores since migration 0014 comes back whole, a decision is found
// by its id within its project only, and a list is newest first, filtered, limited and scoped to its project,
// saying when a filter no index serves stopped at its scan limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import type { NewEvent } from '../../src/store/events.js';
import { testDatabases } from '../support/databases.js';

const NOW = 1_800_000_000_000;
const DECISION = '01900000-0000-7000-8000-000000000001';

function event(i: number, overrides: Partial<NewEvent> = {}): NewEvent {
  const email = overrides.email ?? `user${i}@example.com`;
  return {
    projectId: 'prj_shop',
    endpoint: 'verify',
    email,
    emailLower: email.toLowerCase(),
    baseEmail: email.toLowerCase(),
    action: 'allow',
    createdAt: NOW + i * 1_000,
    ...overrides,
  };
}

describe.each(testDatabases)('stored decisions on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
    await Promise.all([
      store.events.record(
        event(0, {
          email: 'Jane.Doe+promo@Gmail.com',
          emailLower: 'jane.doe+promo@gmail.com',
          baseEmail: 'janedoe@gmail.com',
          domain: 'gmail.com',
          ipv4: '203.0.113.7',
          device: 'dev1',
          action: 'challenge',
          riskScore: 42,
          decisionId: DECISION,
          requestId: 'req-1',
          policyName: 'strict-signup',
          policyRevision: 'abcdef0123456789',
          errors: ['disposable_domain'],
          warnings: ['role_based', 'new_domain'],
          recordedFacts: { mx_record_count: 2 },
        }),
      ),
      store.events.record(event(1, { email: 'janedoe@gmail.com', baseEmail: 'janedoe@gmail.com', ipv6: '2001:DB8:0::1', action: 'block' })),
      // Stored before migration 0002: the lower-cased address was the base.
      store.events.record(event(2, { email: 'Jane.Doe@gmail.com', baseEmail: 'jane.doe@gmail.com', ipv4: '203.0.113.7' })),
      store.events.record(event(3, { endpoint: 'intelligence', ipv4: '203.0.113.7', action: 'ignore', parentRule: 1 })),
      store.events.record(event(4, { projectId: 'prj_other', email: 'janedoe@gmail.com', baseEmail: 'janedoe@gmail.com', ipv4: '203.0.113.7' })),
      store.events.record(event(5, { action: 'block' })),
    ]);
  });
  afterAll(() => store.close());

  it('returns everything an event stored, by its decision id, within its project only', async () => {
    const found = await store.events.findDecision('prj_shop', DECISION.toUpperCase());
    expect(found).toEqual({
      id: expect.any(Number),
      decisionId: DECISION,
      requestId: 'req-1',
      projectId: 'prj_shop',
      createdAt: NOW,
      endpoint: 'verify',
      action: 'challenge',
      email: 'Jane.Doe+promo@Gmail.com',
      emailLower: 'jane.doe+promo@gmail.com',
      baseEmail: 'janedoe@gmail.com',
      domain: 'gmail.com',
      ipv4: '203.0.113.7',
      ipv6: null,
      device: 'dev1',
      fingerprintToken: null,
      riskScore: 42,
      errors: ['disposable_domain'],
      warnings: ['role_based', 'new_domain'],
      parentRule: null,
      policyName: 'strict-signup',
      policyRevision: 'abcdef0123456789',
      recordedFacts: { mx_record_count: 2 },
    });
    expect(await store.events.findDecision(null, DECISION)).toEqual(found);
    expect(await store.events.findDecision('prj_other', DECISION)).toBeNull();
    expect(await store.events.findDecision(null, '01900000-0000-7000-8000-000000000002')).toBeNull();
    expect(await store.events.findDecision(null, 'not an id')).toBeNull();
    expect(await store.events.get(found?.id as number)).toEqual(found);
    expect(await store.events.get(10_000_000)).toBeNull();
  });

  it('lists a project’s events newest first, up to the limit, never another project’s', async () => {
    const all = await store.events.list({ projectId: 'prj_shop', limit: 20 });
    expect(all.events.map((e) => e.createdAt)).toEqual([5, 3, 2, 1, 0].map((i) => NOW + i * 1_000));
    expect(all.bounded).toBe(false);
    expect((await store.events.list({ projectId: 'prj_shop', limit: 2 })).events.map((e) => e.createdAt)).toEqual([NOW + 5_000, NOW + 3_000]);
    expect((await store.events.list({ projectId: 'prj_shop', limit: 20, since: NOW + 2_000 })).events).toHaveLength(3);
    const intelligence = all.events.find((e) => e.endpoint === 'intelligence');
    expect(intelligence).toMatchObject({ action: 'ignore', parentRule: 1, errors: [], warnings: [], decisionId: null });
  });

  it('filters by address (its base and a row stored under the lower-cased address), IP, action, and all at once', async () => {
    const at = (list: { events: Array<{ createdAt: number }> }) => list.events.map((e) => (e.createdAt - NOW) / 1_000);
    const email = { base: 'janedoe@gmail.com', lower: 'jane.doe@gmail.com' };
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, email }))).toEqual([2, 1, 0]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, email: { base: 'janedoe@gmail.com', lower: 'janedoe@gmail.com' } }))).toEqual([1, 0]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, ip: '203.0.113.7' }))).toEqual([3, 2, 0]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, ip: '2001:db8::1' }))).toEqual([1]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, action: 'block' }))).toEqual([5, 1]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, email, ip: '203.0.113.7' }))).toEqual([2, 0]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, email, ip: '203.0.113.7', action: 'challenge' }))).toEqual([0]);
    expect(at(await store.events.list({ projectId: 'prj_shop', limit: 20, ip: '203.0.113.7', action: 'ignore', since: NOW + 1 }))).toEqual([3]);
  });

  it('says when a filter no index serves stopped at its scan limit before the limit was found', async () => {
    const cut = await store.events.list({ projectId: 'prj_shop', limit: 5, action: 'challenge', scanLimit: 5 });
    expect(cut).toEqual({ events: [expect.objectContaining({ action: 'challenge' })], bounded: false });
    const stopped = await store.events.list({ projectId: 'prj_shop', limit: 2, action: 'challenge', scanLimit: 3 });
    expect(stopped).toEqual({ events: [], bounded: true });
    expect(await store.events.list({ projectId: 'prj_shop', limit: 1, action: 'block', scanLimit: 1 })).toEqual({
      events: [expect.objectContaining({ action: 'block' })],
      bounded: false,
    });
  });

  it('refuses a limit out of range', async () => {
    await expect(store.events.list({ projectId: 'prj_shop', limit: 1_001 })).rejects.toThrow(/1 to 1000/);
    await expect(store.events.list({ projectId: 'prj_shop', limit: 0 })).rejects.toThrow(/1 to 1000/);
  });
});
