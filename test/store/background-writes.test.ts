// Writes beside the event commits (a domain's facts, a key's last use) on an embedded SQLite file: while
// another connection holds the write lock, the event loop keeps running (node-sqlite3 waits in SQLite's busy
// handler on libuv's pool), and the write lands once the lock is free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { openSqliteTestStore } from '../support/databases.js';
import { type SqliteConnection, sqliteConnection } from './sqlite-connection.js';

describe('writes beside the commits on an embedded SQLite file', () => {
  let store: Store;
  let other: SqliteConnection;
  beforeAll(async () => {
    store = await openSqliteTestStore();
    const { filename } = (store.knex.client as { config: { connection: { filename: string } } }).config.connection;
    other = await sqliteConnection(filename); // another connection: another process, say
  });
  afterAll(async () => {
    await other.close();
    await store.close();
  });

  it("wait for the write lock with the event loop free, then write (a domain's facts, a key's last use)", async () => {
    const project = await store.projects.create({ name: 'bg', policy: 'default' });
    const { key } = await store.keys.create(project.id, 'access_token');
    const order: string[] = [];
    // Holds the write lock until a timer frees it: a busy handler on the event loop would have slept the loop,
    // and the timer could not have run before the writes gave up.
    await other.run('begin immediate');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        void other.run('commit').then(() => {
          order.push('lock released');
          resolve();
        });
      }, 300),
    );
    await Promise.all([
      store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000),
      store.keys.markUsed(new Map([[key.id, 1_800_000_000_000]])),
    ]);
    order.push('written');
    await released;
    expect(order).toEqual(['lock released', 'written']);
    expect(await store.domainFacts.get('bg.example', 'mx')).toMatchObject({ value: { hosts: ['mx.bg.example'] } });
    expect((await store.keys.list(project.id)).map((k) => k.lastUsedAt)).toEqual([1_800_000_000_000]);
  });

  it('wait up to 5 s for the lock (busy_timeout), on the writer connection', async () => {
    expect(await store.knex.raw('pragma busy_timeout')).toEqual([{ timeout: 5000 }]);
    expect(await store.knex.raw('pragma journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await store.knex.raw('pragma synchronous')).toEqual([{ synchronous: 1 }]); // NORMAL
  });
});
