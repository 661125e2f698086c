// The store thread of an embedded SQLite file (src/store/sqlite-thread.ts) dying for real: a commit too big
// for its heap limit kills it (ERR_WORKER_OUT_OF_MEMORY). The calls it held fail as an outage (503 for the
// caller, isUnavailable), and the next call starts another thread, which commits and reads as before.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Store } from '../../src/store/database.js';
import type { EventRow } from '../../src/store/event-writer.js';
import { openSqliteThread, type SqliteThread } from '../../src/store/sqlite-thread.js';
import { isUnavailable } from '../../src/store/unavailable.js';

const NOW = 1_800_000_000_000;
const PROJECT = 'prj_thread';

const row = (email: string, createdAt = NOW): EventRow => ({
  project_id: PROJECT,
  endpoint: 'verify',
  email,
  email_lower: email.toLowerCase(),
  base_email: email.toLowerCase(),
  domain: email.split('@')[1] ?? null,
  ipv4: '198.51.100.9',
  ipv6: null,
  device: null,
  action: 'allow',
  risk_score: 0,
  policy_revision: null,
  recorded_facts: null,
  created_at: createdAt,
});

const velocity = (thread: SqliteThread) => thread.velocity({ projectId: PROJECT, kind: 'ipv4', subject: '198.51.100.9', since: [NOW - 60_000], limit: 10 });

describe('the store thread', () => {
  let dir: string;
  let store: Store;
  let thread: SqliteThread;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-thread-'));
    const file = join(dir, 'store.sqlite');
    store = await openDatabase(`sqlite:${file}`);
    await store.migrate();
    // A small heap, so that one oversized commit is enough to kill it.
    thread = openSqliteThread(file, store.knex, { heapMb: 16 });
  });
  afterAll(async () => {
    await thread?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fails the calls of a thread that died as an outage, and the next call starts another', async () => {
    await thread.insert([row('a@x.io')]);
    expect((await velocity(thread)).total).toBe(1);

    // About 100 MB of rows in one message: the thread runs out of its 16 MB while it takes them in.
    const huge = Array.from({ length: 50_000 }, (_, i) => row(`${'x'.repeat(1000)}${i}@x.io`));
    const died = await thread.insert(huge).then(
      () => null,
      (error: unknown) => error,
    );
    expect(died).toBeInstanceOf(Error);
    expect((died as Error).message).toMatch(/^the store thread stopped/);
    expect(isUnavailable(died)).toBe(true);

    await thread.insert([row('b@x.io', NOW + 1)]);
    const after = await velocity(thread);
    expect(after.total).toBe(2); // the huge commit never happened: all or nothing
    expect(after.emails.map((e) => e.email)).toEqual(['b@x.io', 'a@x.io']);
    const stored = await store.knex('events').where({ project_id: PROJECT }).pluck('email');
    expect(stored.sort()).toEqual(['a@x.io', 'b@x.io']);
  });

  it('runs read statements of one turn in one message, each failing alone, and sees every commit acknowledged before', async () => {
    await thread.insert([row('c@x.io', NOW + 2)]);
    const [rows, broken, count] = await Promise.allSettled([
      thread.all({ sql: 'select email from events where project_id = ? and email = ?', bindings: [PROJECT, 'c@x.io'] }),
      thread.all({ sql: 'select email from nowhere', bindings: [] }),
      thread.all({ sql: 'select count(*) as n from events where project_id = ?', bindings: [PROJECT] }),
    ]);
    expect(rows).toEqual({ status: 'fulfilled', value: [{ email: 'c@x.io' }] });
    expect(broken.status).toBe('rejected');
    expect(((broken as PromiseRejectedResult).reason as Error).message).toMatch(/no such table: nowhere/);
    expect(count).toEqual({ status: 'fulfilled', value: [{ n: 3 }] });
  });
});
