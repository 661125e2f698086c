// Velocity reads on an embedded SQLite file come from memory once read (src/store/velocity-cache.ts), kept
// up to date by the writer. Speed never changes an answer: every read through the store equals the same
// read straight from the database (through knex, no cache), after writes of this process, of a second
// store on the file (once its data_version is read) and of retention, with addresses tied on their time.
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
  const direct = (limit: number): Promise<Velocity> => createEvents(store.knex, knexReads(store.knex)).velocityReader(PROJECT).byIp(query(limit));
  const cached = (limit: number): Promise<Velocity> => store.events.velocityReader(PROJECT).byIp(query(limit));
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

  it('after a second store on the file writes, and after retention deletes through knex', async () => {
    await cached(100); // held
    const second = await openSecondStore(store);
    try {
      await second.events.record(event('other-process@x.io', NOW + 1));
    } finally {
      await second.close();
    }
    // Seen once the writer connection's data_version is read again (every VERSION_POLL_MS).
    const expected = await direct(100);
    expect(expected.emails[0]?.email).toBe('other-process@x.io');
    await expect.poll(() => cached(100), { timeout: 5_000 }).toEqual(expected);
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
  const count = (bucket: number, validations: number, addresses = 0) => ({
    project_id: 'p',
    kind: 'ipv4' as const,
    subject: 's',
    bucket,
    validations,
    addresses,
  });
  const address = (address: string, last_seen: number) => ({ project_id: 'p', kind: 'ipv4' as const, subject: 's', address, last_seen });
  const commit = (cache: ReturnType<typeof createVelocityCache>, counts: ReturnType<typeof count>[], addresses: ReturnType<typeof address>[]) =>
    cache.apply(cache.committing(counts), counts, addresses);

  it('answers only what it was read with: the same or a later bucket, the same or a smaller limit, the same data_version', () => {
    let version: number | null = 1;
    const cache = createVelocityCache(() => version);
    cache.set(
      cache.begin('p', 'ipv4', 's'),
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
    });
    expect(cache.get('p', 'ipv4', 's', 101, 1)).toEqual({ total: 3, distinct: 2, minutes: [[101, 2]], addresses: [{ address: 'b@x', last_seen: 2 }] });
    expect(cache.get('p', 'ipv4', 's', 99, 2)).toBeNull();
    expect(cache.get('p', 'ipv4', 's', 100, 3)).toBeNull();
    expect(cache.get('p', 'ipv6', 's', 100, 2)).toBeNull();
    commit(cache, [count(102, 1), count(TOTAL_BUCKET, 1, 1)], [address('c@x', 3)]);
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
    });
    // Another address lower-casing as b@x does (a row of its own in SQLite), then b@x again, then B@X again (moves).
    commit(cache, [], [address('B@X', 4)]);
    commit(cache, [], [address('b@x', 5)]);
    expect(cache.get('p', 'ipv4', 's', 100, 2)?.addresses).toEqual([
      { address: 'b@x', last_seen: 5 },
      { address: 'B@X', last_seen: 4 },
    ]);
    commit(cache, [], [address('B@X', 6)]);
    commit(cache, [], [address('b@x', 1)]); // an older sighting changes nothing
    expect(cache.get('p', 'ipv4', 's', 100, 2)?.addresses).toEqual([
      { address: 'B@X', last_seen: 6 },
      { address: 'b@x', last_seen: 5 },
    ]);
    version = null; // the data_version not read lately: nothing is answered
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
    version = 2; // another connection committed
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
    version = 1;
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull(); // dropped
  });

  it("keeps nothing read while a commit touching the subject ran, nor across another connection's commit", () => {
    let version = 1;
    const cache = createVelocityCache(() => version);
    const read = rows(1, 1, [[100, 1]]);
    const list = [{ address: 'a@x', last_seen: 1 }];
    // A commit begun during the read.
    const before = cache.begin('p', 'ipv4', 's');
    commit(cache, [count(100, 1)], []);
    cache.set(before, 100, 2, read, list);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
    // A commit in flight when the read began, finished before its answer.
    const id = cache.committing([count(100, 1)]);
    const during = cache.begin('p', 'ipv4', 's');
    cache.apply(id, [count(100, 1)], []);
    cache.set(during, 100, 2, read, list);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
    // A commit of another subject, or one that failed, changes nothing of this one.
    const other = cache.begin('p', 'ipv4', 's');
    commit(cache, [{ ...count(100, 1), subject: 't' }], []);
    cache.set(other, 100, 2, read, list);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).not.toBeNull();
    cache.clear();
    const failedDuring = cache.begin('p', 'ipv4', 's');
    cache.failed(cache.committing([count(100, 1)]));
    cache.set(failedDuring, 100, 2, read, list);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull(); // it may have: not kept
    // Another connection's commit.
    const again = cache.begin('p', 'ipv4', 's');
    version = 2;
    cache.set(again, 100, 2, read, list);
    expect(cache.get('p', 'ipv4', 's', 100, 2)).toBeNull();
  });
});
