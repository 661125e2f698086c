// Velocity reads on an embedded SQLite file come from memory once read (src/store/velocity-cache.ts), kept
// up to date by the writer. Speed never changes an answer: every read through the store equals the same
// read straight from the database (through knex, no cache), after writes of this process, of a second
// store on the file and of retention, with addresses tied on their time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Velocity } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import { createEvents, knexReads, type NewEvent } from '../../src/store/events.js';
import { createVelocityCache } from '../../src/store/velocity-cache.js';
import { TOTAL_BUCKET } from '../../src/store/velocity-counters.js';
import { openSecondStore, openSqliteTestStore } from '../support/databases.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;
const IP = '198.51.100.44';
const PROJECT = 'prj_cache';

const event = (email: string, createdAt: number, overrides: Partial<NewEvent> = {}): NewEvent => ({
  projectId: PROJECT,
  endpoint: 'verify',
  email,
  emailLower: email.toLowerCase(),
  baseEmail: email.toLowerCase(),
  action: 'allow',
  ipv4: IP,
  createdAt,
  ...overrides,
});

describe('velocity reads from memory on sqlite answer what the database does', () => {
  let store: Store;
  const since = [NOW - 5 * MIN, NOW - 30 * MIN, NOW - 3 * 60 * MIN];
  const query = (limit: number) => ({ ipv4: IP, ipv6: null, since, limit });
  const direct = (limit: number): Velocity | Promise<Velocity> => createEvents(store.knex, knexReads(store.knex)).velocityReader(PROJECT).byIp(query(limit));
  const cached = (limit: number): Velocity | Promise<Velocity> => store.events.velocityReader(PROJECT).byIp(query(limit));
  const same = async (limit: number) => {
    const expected = await direct(limit);
    expect(expected.total).toBeGreaterThan(0);
    expect(await cached(limit)).toEqual(expected);
  };

  beforeAll(async () => {
    store = await openSqliteTestStore();
  });
  afterAll(() => store.close());

  it('after writes of this process: new minutes, new and repeated addresses, ties on the time', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.events.record(event(`u${i}@x.io`, NOW - 40 * MIN + i * 3 * MIN))));
    await same(5);
    await same(100);
    // Same millisecond, addresses whose order differs between UTF-8 (SQLite) and UTF-16 (JavaScript).
    await Promise.all(['ｚ@x.io', '𝔞@x.io', 'b@x.io', 'u3@x.io'].map((email) => store.events.record(event(email, NOW - MIN))));
    await same(3);
    await same(5);
    await same(100);
    await store.events.record(event('u0@x.io', NOW)); // an old address seen again: to the front
    await store.events.record(event('new@x.io', NOW, { ipv6: '2001:db8::44' }));
    await same(5);
    await same(100);
    for (let i = 0; i < 5; i++) {
      await Promise.all(Array.from({ length: 30 }, (_, k) => store.events.record(event(`burst${i}-${k}@x.io`, NOW - 2 * MIN + i * 1000 + (k % 3)))));
      await same(100);
      await same(20);
    }
  });

  it("with the request's own address set apart, as the velocity plugin reads: held, never seen, dropped past the limit, seen again", async () => {
    const withOwn = (address: string, limit: number) => ({ ...query(limit), own: { address, list: 19, since } });
    const sameOwn = async (address: string, limit: number) => {
      const expected = await createEvents(store.knex, knexReads(store.knex)).velocityReader(PROJECT).byIp(withOwn(address, limit));
      expect(await store.events.velocityReader(PROJECT).byIp(withOwn(address, limit))).toEqual(expected);
      return expected.own;
    };
    // 130 more addresses, a second apart: the cache holds the newest 100 of the IP's (own30 to own129).
    for (let i = 0; i < 130; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, k) => store.events.record(event(`Own${i + k}@x.io`, NOW + 10 * MIN + (i + k) * 1000))));
      await cached(100);
    }
    expect(await sameOwn('own129@x.io', 100)).toMatchObject({ seen: true, others: 99 });
    expect(await sameOwn('nobody@x.io', 100)).toMatchObject({ seen: false, others: 100 });
    expect(await sameOwn('own5@x.io', 100)).toMatchObject({ seen: false, others: 100 });
    await store.events.record(event('Own5@x.io', NOW + 20 * MIN)); // back to the front, own30 out
    expect(await sameOwn('own5@x.io', 100)).toMatchObject({ seen: true, others: 99 });
    expect(await sameOwn('own30@x.io', 100)).toMatchObject({ seen: false, others: 100 });
    await sameOwn('own31@x.io', 100);
    await sameOwn('own129@x.io', 20);
  });

  it('after a second store on the file writes, and after retention deletes through knex', async () => {
    await cached(100); // held
    const second = await openSecondStore(store);
    try {
      await second.events.record(event('other-process@x.io', NOW + 1));
    } finally {
      await second.close();
    }
    await same(100);
    await cached(100);
    expect(await store.events.pruneOlderThan(NOW - 20 * MIN)).toBeGreaterThan(0);
    await same(100);
    await same(5);
  });
});

describe('the cache itself', () => {
  const rows = (total: number, distinct: number, minutes: Array<[number, number]>) => [
    { bucket: TOTAL_BUCKET, validations: total, addresses: distinct },
    ...minutes.map(([bucket, validations]) => ({ bucket, validations, addresses: 0 })),
  ];

  it('answers only what it was read with: the same or a later bucket, the same or a smaller limit, the same data_version', () => {
    let version = 1;
    const cache = createVelocityCache(() => version);
    const token = cache.begin();
    cache.set(
      token,
      'p',
      'ipv4',
      's',
      100,
      2,
      rows(3, 2, [
        [101, 2],
        [100, 1],
      ]),
      [
        { address: 'b@x', last_seen: 2 },
        { address: 'a@x', last_seen: 1 },
      ],
    );
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toEqual({
      total: 3,
      distinct: 2,
      minutes: [
        [101, 2],
        [100, 1],
      ],
      addresses: [
        { address: 'b@x', last_seen: 2 },
        { address: 'a@x', last_seen: 1 },
      ],
      lastSeen: [2, 1],
      lowered: new Map([
        ['b@x', 1],
        ['a@x', 1],
      ]),
    });
    // Part of the list: without its index (lastSeen and lowered describe the whole list).
    expect(cache.get('p', 'ipv4', 's', 101, 1)).toEqual({ total: 3, distinct: 2, minutes: [[101, 2]], addresses: [{ address: 'b@x', last_seen: 2 }] });
    expect(cache.get('p', 'ipv4', 's', 99, 2)).toBeNull();
    expect(cache.get('p', 'ipv4', 's', 100, 3)).toBeNull();
    expect(cache.get('p', 'ipv6', 's', 100, 2)).toBeNull();
    cache.apply(
      [
        { project_id: 'p', kind: 'ipv4', subject: 's', bucket: 102, validations: 1, addresses: 0 },
        { project_id: 'p', kind: 'ipv4', subject: 's', bucket: TOTAL_BUCKET, validations: 1, addresses: 1 },
      ],
      [{ project_id: 'p', kind: 'ipv4', subject: 's', address: 'c@x', last_seen: 3 }],
    );
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toEqual({
      total: 4,
      distinct: 3,
      minutes: [
        [102, 1],
        [101, 2],
        [100, 1],
      ],
      addresses: [
        { address: 'c@x', last_seen: 3 },
        { address: 'b@x', last_seen: 2 },
      ],
      lastSeen: [3, 2],
      lowered: new Map([
        ['b@x', 1],
        ['c@x', 1],
      ]),
    });
    // Another address lower-casing as b@x does (a row of its own in SQLite), then b@x again: each counted.
    cache.apply([], [{ project_id: 'p', kind: 'ipv4', subject: 's', address: 'B@X', last_seen: 4 }]);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toMatchObject({
      addresses: [
        { address: 'B@X', last_seen: 4 },
        { address: 'c@x', last_seen: 3 },
      ],
      lastSeen: [4, 3],
      lowered: new Map([
        ['c@x', 1],
        ['b@x', 1],
      ]),
    });
    cache.apply([], [{ project_id: 'p', kind: 'ipv4', subject: 's', address: 'b@x', last_seen: 5 }]);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toMatchObject({ lastSeen: [5, 4], lowered: new Map([['b@x', 2]]) });
    cache.apply([], [{ project_id: 'p', kind: 'ipv4', subject: 's', address: 'B@X', last_seen: 6 }]); // seen again: moves, counted once
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toMatchObject({
      addresses: [
        { address: 'B@X', last_seen: 6 },
        { address: 'b@x', last_seen: 5 },
      ],
      lastSeen: [6, 5],
      lowered: new Map([['b@x', 2]]),
    });
    version = 2; // another connection committed
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
  });

  it('keeps nothing read before a commit of this process or another connection', () => {
    let version = 1;
    const cache = createVelocityCache(() => version);
    const before = cache.begin();
    cache.apply([], []);
    cache.set(before, 'p', 'ipv4', 's', 100, 2, rows(1, 1, [[100, 1]]), [{ address: 'a@x', last_seen: 1 }]);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
    const again = cache.begin();
    version = 2;
    cache.set(again, 'p', 'ipv4', 's', 100, 2, rows(1, 1, [[100, 1]]), [{ address: 'a@x', last_seen: 1 }]);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
  });
});
