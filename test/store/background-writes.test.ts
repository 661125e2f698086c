// Writes beside the event commits (a domain's facts, a key's last use) on an embedded SQLite file: better-sqlite3
// runs them on the event loop, so while another connection holds the write lock they wait only briefly
// (SQLITE_BUSY_TIMEOUT_MS) and fail as an outage (503), and the next one lands once the lock is free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../src/store/sqlite-statements.js';
import { isUnavailable } from '../../src/store/unavailable.js';
import { openSqliteTestStore } from '../support/databases.js';
import { failureOf, type SqliteConnection, sqliteConnection } from './sqlite-connection.js';

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

  it("fail as an outage while another connection holds the write lock, and write once it is free (a domain's facts, a key's last use)", async () => {
    const project = await store.projects.create({ name: 'bg', policy: 'default' });
    const { key } = await store.keys.create(project.id, 'access_token');
    await other.run('begin immediate');
    try {
      const busy = await failureOf(() => store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000));
      expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isUnavailable(busy)).toBe(true);
      expect(isUnavailable(await failureOf(() => store.keys.markUsed(new Map([[key.id, 1_800_000_000_000]]))))).toBe(true);
    } finally {
      await other.run('commit');
    }
    await store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000);
    await store.keys.markUsed(new Map([[key.id, 1_800_000_000_000]]));
    expect(await store.domainFacts.get('bg.example', 'mx')).toMatchObject({ value: { hosts: ['mx.bg.example'] } });
    expect((await store.keys.list(project.id)).map((k) => k.lastUsedAt)).toEqual([1_800_000_000_000]);
  });

  it('wait SQLITE_BUSY_TIMEOUT_MS for the lock (busy_timeout), on the writer connection, in WAL with synchronous=NORMAL', async () => {
    expect(await store.knex.raw('pragma busy_timeout')).toEqual([{ timeout: SQLITE_BUSY_TIMEOUT_MS }]);
    expect(await store.knex.raw('pragma journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await store.knex.raw('pragma synchronous')).toEqual([{ synchronous: 1 }]); // NORMAL
  });
});
