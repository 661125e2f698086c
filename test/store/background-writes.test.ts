// Writes beside the event commits (a domain's facts, a key's last use) on an embedded SQLite file go to the
// writer thread (src/store/background-writes.ts): while another connection holds the write lock they wait
// there, not on the event loop, up to COMMIT_LOCK_WAIT_MS, then fail as an outage (503); the next one lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../src/store/sqlite-statements.js';
import { isUnavailable } from '../../src/store/unavailable.js';
import { openSqliteTestStore } from '../support/databases.js';
import { failureOf, type SqliteConnection, sqliteConnection } from './sqlite-connection.js';

const AT = 1_800_000_000_000;

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

  it("wait for a lock held elsewhere without holding the event loop, and land once it is free (a domain's facts, a key's last use)", async () => {
    const project = await store.projects.create({ name: 'bg', policy: 'default' });
    const { key } = await store.keys.create(project.id, 'access_token');
    await other.run('begin immediate');
    let landed = 0;
    const writes = [store.domainFacts.put('bg.example', 'mx', { hosts: ['mx.bg.example'] }, 60_000), store.keys.markUsed(new Map([[key.id, AT]]))].map(
      (write) => write.then(() => (landed += 1)),
    );
    try {
      // Longer than knex's own busy timeout: timers fire and the other connection goes on; nothing lands.
      const until = Date.now() + 2 * SQLITE_BUSY_TIMEOUT_MS;
      while (Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        await other.run('select 1');
      }
      expect(landed).toBe(0);
    } finally {
      await other.run('commit');
    }
    await Promise.all(writes);
    expect(await store.domainFacts.get('bg.example', 'mx')).toMatchObject({ value: { hosts: ['mx.bg.example'] } });
    expect((await store.keys.list(project.id)).map((k) => k.lastUsedAt)).toEqual([AT]);
  });

  it('fail as an outage (SQLITE_BUSY) when the lock is held past COMMIT_LOCK_WAIT_MS, and the next one lands', async () => {
    await other.run('begin immediate');
    let busy: unknown;
    try {
      busy = await failureOf(() => store.domainFacts.put('late.example', 'mx', { hosts: [] }, 60_000));
    } finally {
      await other.run('commit');
    }
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    expect(isUnavailable(busy)).toBe(true);
    await store.domainFacts.put('late.example', 'mx', { hosts: ['mx.late.example'] }, 60_000);
    expect(await store.domainFacts.get('late.example', 'mx')).toMatchObject({ value: { hosts: ['mx.late.example'] } });
  });

  it('leave knex its own short wait (SQLITE_BUSY_TIMEOUT_MS), in WAL with synchronous=NORMAL', async () => {
    expect(await store.knex.raw('pragma busy_timeout')).toEqual([{ timeout: SQLITE_BUSY_TIMEOUT_MS }]);
    expect(await store.knex.raw('pragma journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await store.knex.raw('pragma synchronous')).toEqual([{ synchronous: 1 }]); // NORMAL
  });
});
