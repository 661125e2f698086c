// Writes beside the store thread's commits (a key's last use and a domain's facts, through knex or on the store
// thread's connection) on an embedded SQLite file: while another connection holds the write lock, the event
// loop keeps running, and the write lands once the lock is free.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backgroundWrites } from '../../src/store/background-writes.js';
import type { Store } from '../../src/store/database.js';
import { isUnavailable } from '../../src/store/unavailable.js';
import { openSqliteTestStore } from '../support/databases.js';

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
    const order: string[] = [];
    // Holds the write lock until a timer frees it: SQLite's busy handler on the event loop would have slept the
    // loop, the timer could not have run, and the write would have failed with SQLITE_BUSY.
    other.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        order.push('lock released');
        resolve();
      }, 300),
    );
    await store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000);
    order.push('written');
    await released;
    expect(order).toEqual(['lock released', 'written']);
    expect(await store.domainFacts.get('bg.example', 'mx')).toMatchObject({ value: { hosts: ['mx.bg.example'] } });
  });

  it('give up after their timeout as the database being unavailable (SQLITE_BUSY), the event loop free meanwhile', async () => {
    other.exec('BEGIN IMMEDIATE');
    const order: string[] = [];
    try {
      const write = backgroundWrites(store.knex, 200);
      // A timer due well before the timeout runs while the write waits; a loop asleep in the busy handler runs it after.
      const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('timer of 20 ms')), 20));
      const error = await write((trx) => trx('usage').insert({ project_id: 'prj_bg', month: '2026-12', count: 1 })).then(
        () => null,
        (reason: unknown) => reason as { code?: string },
      );
      order.push(error === null ? 'written' : 'gave up');
      await timer;
      expect(order).toEqual(['timer of 20 ms', 'gave up']);
      expect(error?.code).toBe('SQLITE_BUSY');
      expect(isUnavailable(error)).toBe(true);
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
