// The store thread of an embedded SQLite file (src/store/sqlite-thread.ts) dying for real: a commit too big
// for its heap limit kills it (ERR_WORKER_OUT_OF_MEMORY). The calls it held fail as an outage (503 for the
// caller, isUnavailable), and the next call starts another thread, which commits and reads as before.
// And its group commit: the inserts waiting behind a busy thread commit as one transaction, a refused row
// failing its own insert only; the event writer sends each turn's rows without waiting for the last commit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Store } from '../../src/store/database.js';
import { createEventWriter, type EventRow, ROWS_SENT_AT_ONCE } from '../../src/store/event-writer.js';
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
  let file: string;
  let store: Store;
  let thread: SqliteThread;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-thread-'));
    file = join(dir, 'store.sqlite');
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

  it('writes statements in one transaction, all or nothing, with their RETURNING rows', async () => {
    const upsert = `insert into usage (project_id, month, count) values (?, ?, ?)
      on conflict (project_id, month) do update set count = usage.count + excluded.count returning count`;
    const [first, second] = await thread.write([
      { sql: upsert, bindings: ['prj_w', '2026-11', 2] },
      { sql: upsert, bindings: ['prj_w', '2026-11', 3] },
    ]);
    expect(first).toEqual([{ count: 2 }]);
    expect(second).toEqual([{ count: 5 }]);

    // A statement that fails takes the others of its call with it.
    await expect(
      thread.write([
        { sql: upsert, bindings: ['prj_w', '2026-11', 10] },
        { sql: 'insert into no_such_table values (1)', bindings: [] },
      ]),
    ).rejects.toThrow(/no_such_table/);
    const [row] = await store.knex('usage').where({ project_id: 'prj_w', month: '2026-11' });
    expect(Number(row.count)).toBe(5);
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

  /**
   * Keeps the thread busy for a few hundred ms (a read that counts to two million), so that what is sent
   * meanwhile waits; resolves once the read is sent (at the end of the turn), with its answer to come.
   */
  const busy = async (t: SqliteThread) => {
    const answer = t.all({
      sql: 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000) select count(*) as n from c',
      bindings: [],
    });
    await new Promise((r) => setImmediate(r));
    return { answer };
  };

  /** The INSERT INTO events statements the thread ran while `work` ran, as knex's query event shows them. */
  async function eventInserts(work: () => Promise<unknown>): Promise<Array<{ sql: string; bindings: unknown[] }>> {
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listener = (q: { sql: string; bindings: unknown[] }) => {
      if (/^insert into events/i.test(q.sql)) seen.push(q);
    };
    store.knex.on('query', listener);
    try {
      await work();
    } finally {
      store.knex.removeListener('query', listener);
    }
    return seen;
  }

  it('commits the inserts waiting behind its work as one transaction, every caller settled', async () => {
    const inserts = await eventInserts(async () => {
      const reading = (await busy(thread)).answer;
      const results = await Promise.allSettled(['d', 'e', 'f', 'g'].map((name, i) => thread.insert([row(`${name}@x.io`, NOW + 10 + i)])));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect(await reading).toEqual([{ n: 2_000_000 }]);
    });
    // One statement of four rows, in the order sent.
    expect(inserts).toHaveLength(1);
    expect(inserts[0]?.bindings.filter((b) => typeof b === 'string' && b.endsWith('@x.io') && b.length === 6)).toEqual(
      ['d', 'e', 'f', 'g'].flatMap((n) => Array(3).fill(`${n}@x.io`)),
    );
    const after = await velocity(thread);
    expect(after.emails.slice(0, 4).map((e) => e.email)).toEqual(['g@x.io', 'f@x.io', 'e@x.io', 'd@x.io']);
  });

  it('commits each insert of a group alone when one row is refused: only its caller fails', async () => {
    await store.knex.raw("create trigger refuse_poison before insert on events when new.email = 'poison@x.io' begin select raise(abort, 'refused'); end");
    try {
      const reading = (await busy(thread)).answer;
      const results = await Promise.allSettled([
        thread.insert([row('h@x.io', NOW + 20)]),
        thread.insert([row('poison@x.io', NOW + 21)]),
        thread.insert([row('i@x.io', NOW + 22)]),
      ]);
      await reading;
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/refused/);
      expect(isUnavailable((results[1] as PromiseRejectedResult).reason)).toBe(false);
      const stored = await store.knex('events').where({ project_id: PROJECT }).whereIn('email', ['h@x.io', 'poison@x.io', 'i@x.io']).pluck('email');
      expect(stored.sort()).toEqual(['h@x.io', 'i@x.io']);
      expect((await velocity(thread)).emails.slice(0, 2).map((e) => e.email)).toEqual(['i@x.io', 'h@x.io']);
    } finally {
      await store.knex.raw('drop trigger refuse_poison');
    }
  });

  it("gets each turn's rows from the event writer at once, not after the commit before them is answered", async () => {
    const writer = createEventWriter(store.knex, thread);
    const inserts = await eventInserts(async () => {
      const reading = (await busy(thread)).answer;
      const written: Promise<void>[] = [];
      // Three turns of the event loop, each writing a row, while the thread is busy.
      for (const [i, name] of ['j', 'k', 'l'].entries()) {
        written.push(writer.write(row(`${name}@x.io`, NOW + 30 + i)));
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all(written);
      await reading;
    });
    // All three were waiting on the thread together. A writer that sent a turn's rows only once the commit
    // before them was answered would have made two commits (j, then k and l).
    expect(inserts).toHaveLength(1);
    await writer.flush();
  });

  it(`sends a turn's rows in groups of ${ROWS_SENT_AT_ONCE} as they are written: the first group commits while the turn goes on`, async () => {
    const writer = createEventWriter(store.knex, thread);
    const reader = new Database(file, { readonly: true });
    try {
      const stored = () => (reader.prepare("select count(*) as n from events where email like 'turn%'").get() as { n: number }).n;
      const written = Array.from({ length: ROWS_SENT_AT_ONCE }, (_, i) => writer.write(row(`turn${i}@x.io`, NOW + 50 + i)));
      // The turn goes on, without giving the event loop back, until another connection sees the group (at most 5 s).
      const deadline = Date.now() + 5_000;
      let seen = stored();
      while (seen < ROWS_SENT_AT_ONCE && Date.now() < deadline) seen = stored();
      // One row more in the same turn: sent at the turn's end.
      written.push(writer.write(row('turn-last@x.io', NOW + 60)));
      expect(seen).toBe(ROWS_SENT_AT_ONCE);
      expect(stored()).toBe(ROWS_SENT_AT_ONCE);
      await Promise.all(written);
      expect(stored()).toBe(ROWS_SENT_AT_ONCE + 1);
    } finally {
      reader.close();
    }
  });
});
