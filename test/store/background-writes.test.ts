// Writes beside the store thread's commits (a key's last use and a domain's facts, through knex or on the store
// thread's connection) on an embedded SQLite file: while another connection holds the write lock, the event
// loop keeps running, and the write lands once the lock is free.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backgroundWrites } from '../../src/store/background-writes.js';
import type { Store } from '../../src/store/database.js';
import { isUnavailable } from '../../src/store/unavailable.js';
import { openSqliteTestStore } from '../support/databases.js';

/** The longest the event loop went without running a 2 ms timer while `work` was pending. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 2);
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  stallMs = Math.max(stallMs, performance.now() - last);
  return { result, stallMs };
}

describe('background writes on an embedded SQLite file', () => {
  let store: Store;
  let other: Database.Database;
  beforeAll(async () => {
    store = await openSqliteTestStore();
    const { filename } = (store.knex.client as { config: { connection: { filename: string } } }).config.connection;
    other = new Database(filename, { timeout: 0 }); // another connection: another process, say
  });
  afterAll(async () => {
    other.close();
    await store.close();
  });

  it("wait for the write lock with the event loop free, then write (a domain's facts)", async () => {
    other.exec('BEGIN IMMEDIATE'); // holds the write lock for 300 ms
    const released = new Promise<number>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        resolve(performance.now());
      }, 300),
    );
    const { result, stallMs } = await longestStall(async () => {
      await store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000);
      return performance.now();
    });
    expect(result.status).toBe('fulfilled');
    const at = (result as PromiseFulfilledResult<number>).value;
    expect(at).toBeGreaterThanOrEqual(await released); // not before the lock was free
    // SQLite's busy handler would have slept the event loop until the lock was free (and the timer that frees it
    // could not have run): 300 ms and more.
    expect(stallMs).toBeLessThan(150);
    expect(await store.domainFacts.get('bg.example', 'mx')).toMatchObject({ value: { hosts: ['mx.bg.example'] } });
  });

  it('give up after their timeout as the database being unavailable (SQLITE_BUSY), the event loop free meanwhile', async () => {
    other.exec('BEGIN IMMEDIATE');
    try {
      const write = backgroundWrites(store.knex, 200);
      const { result, stallMs } = await longestStall(() => write((trx) => trx('usage').insert({ project_id: 'prj_bg', month: '2026-12', count: 1 })));
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as { code?: string };
      expect(error.code).toBe('SQLITE_BUSY');
      expect(isUnavailable(error)).toBe(true);
      expect(stallMs).toBeLessThan(150);
    } finally {
      other.exec('COMMIT');
    }
    expect(await store.usage.get('prj_bg', '2026-12')).toBe(0); // nothing written
    // The connection waits for the lock as before once the write is over (busy_timeout put back).
    expect(await store.knex.raw('pragma busy_timeout')).toEqual([{ timeout: 5000 }]);
  });

  it("leave checkpoints to the checkpoint thread: knex's connection on the event loop never runs one itself", async () => {
    expect(await store.knex.raw('pragma wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: 0 }]);
  });
});
