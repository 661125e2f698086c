// The event loop's replica of the store thread's velocity cache (src/store/sqlite-thread.ts): velocity reads
// answered without a message to the thread must be the answers the thread gives, after every commit of this
// process; another connection's commit must be seen once the thread has answered since (at most
// REPLICA_FRESH_MS later, on a clock the test moves), and retention through knex at once. A commit's answer counts from its end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { velocityReads } from '../../src/metrics.js';
import { openDatabase, type Store } from '../../src/store/database.js';
import type { EventRow } from '../../src/store/event-writer.js';
import { createEvents } from '../../src/store/events.js';
import { openSqliteThread, REPLICA_FRESH_MS, type SqliteThread } from '../../src/store/sqlite-thread.js';
import type { SubjectQuery } from '../../src/store/velocity-queries.js';

const NOW = 1_800_000_000_000;
const MINUTE = 60_000;
const PROJECT = 'prj_replica';
const IPS = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];

const row = (email: string, ip: string, createdAt: number): EventRow => ({
  project_id: PROJECT,
  endpoint: 'verify',
  email,
  email_lower: email.toLowerCase(),
  base_email: email.toLowerCase(),
  domain: 'x.io',
  ipv4: ip,
  ipv6: null,
  device: null,
  action: 'allow',
  risk_score: 0,
  policy_revision: null,
  recorded_facts: null,
  created_at: createdAt,
});

async function replicaAnswers(): Promise<number> {
  const { values } = await velocityReads.get();
  return values.find((v) => v.labels.answer === 'replica')?.value ?? 0;
}

describe('the velocity replica on the event loop', () => {
  let dir: string;
  let file: string;
  let store: Store;
  const threads: SqliteThread[] = [];
  const open = (options: Parameters<typeof openSqliteThread>[2] = {}) => {
    const thread = openSqliteThread(file, store.knex, options);
    threads.push(thread);
    return thread;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-replica-'));
    file = join(dir, 'store.sqlite');
    store = await openDatabase(`sqlite:${file}`);
    await store.migrate();
  });
  afterEach(async () => {
    for (const thread of threads.splice(0)) await thread.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives the thread's own answers after every commit, for every window, limit and own address", async () => {
    const thread = open();
    const reference = open({ replica: false }); // another connection: it sees every commit of `thread`
    const queries = (ip: string, n: number): SubjectQuery[] => [
      { projectId: PROJECT, kind: 'ipv4', subject: ip, since: [NOW - 5 * MINUTE, NOW - MINUTE, NOW + n * 7_000], limit: 100 },
      { projectId: PROJECT, kind: 'ipv4', subject: ip, since: [NOW], limit: 3 },
      {
        projectId: PROJECT,
        kind: 'ipv4',
        subject: ip,
        since: [NOW - MINUTE],
        limit: 100,
        own: { address: `user${n % 4}@x.io`, list: 2, since: [NOW, NOW + n * 5_000] },
      },
      { projectId: PROJECT, kind: 'ipv4', subject: ip, since: [], limit: 0 },
    ];
    const before = await replicaAnswers();
    for (let n = 0; n < 60; n++) {
      const ip = IPS[n % IPS.length] as string;
      // Addresses come back (user0…user3 and new ones), times move across minutes and now and then go back.
      const email = n % 3 === 0 ? `user${n % 4}@x.io` : `new${n}@x.io`;
      await thread.insert([row(email, ip, NOW + n * 9_000 - (n % 5 === 0 ? 30_000 : 0))]);
      for (const q of queries(ip, n)) {
        const [mine, theirs] = await Promise.all([thread.velocity(q), reference.velocity(q)]);
        expect(mine, `event ${n}, ${JSON.stringify(q)}`).toEqual(theirs);
      }
    }
    // Most of those answers came from the replica (otherwise this compared the thread with itself).
    expect((await replicaAnswers()) - before).toBeGreaterThan(150);
  });

  it('sees a commit of another connection once the thread has answered since, at most REPLICA_FRESH_MS later', async () => {
    let ahead = 0;
    const thread = open({ now: () => Date.now() + ahead });
    const other = open({ replica: false });
    const q: SubjectQuery = { projectId: PROJECT, kind: 'ipv4', subject: IPS[0] as string, since: [NOW - MINUTE], limit: 10 };
    await thread.insert([row('a@x.io', IPS[0] as string, NOW)]);
    await thread.velocity(q);
    expect((await thread.velocity(q)).total).toBe(1);

    await other.insert([row('b@x.io', IPS[0] as string, NOW + 1)]);
    ahead = -MINUTE; // the clock held back: the replica is still fresh, and has not seen the other commit
    expect((await thread.velocity(q)).total).toBe(1);
    ahead = REPLICA_FRESH_MS + 1;
    const after = await thread.velocity(q);
    ahead = 0;
    expect(after.total).toBe(2);
    expect(after.emails.map((e) => e.email)).toEqual(['b@x.io', 'a@x.io']);

    // Once the thread has seen the other connection's commit, the replica answers again, with it.
    const before = await replicaAnswers();
    expect((await thread.velocity(q)).total).toBe(2);
    expect((await replicaAnswers()) - before).toBe(1);
  });

  it('forgets what retention through knex took away, however fresh it is', async () => {
    // Fresh for a minute: only forget() (and the thread's data_version) can tell the replica.
    const thread = open({ replicaFreshMs: 60_000 });
    const events = createEvents(store.knex, { all: thread.all, velocity: thread.velocity }, thread);
    const old = Date.now() - 10 * MINUTE;
    const ip = IPS[1] as string;
    for (const [i, email] of ['a@x.io', 'b@x.io', 'c@x.io'].entries()) {
      await events.record({
        projectId: PROJECT,
        endpoint: 'verify',
        email,
        emailLower: email,
        baseEmail: email,
        action: 'allow',
        ipv4: ip,
        createdAt: i < 2 ? old : Date.now(),
      });
    }
    const reader = events.velocityReader(PROJECT);
    const read = () => reader.byIp({ ipv4: ip, ipv6: null, since: [0], limit: 10 });
    await read();
    const before = await replicaAnswers();
    expect((await read()).total).toBe(3);
    expect((await replicaAnswers()) - before).toBe(1);

    expect(await events.pruneOlderThan(Date.now() - MINUTE)).toBe(2);
    const after = await read();
    expect(after.total).toBe(1);
    expect(after.emails.map((e) => e.email)).toEqual(['c@x.io']);
    expect(after.distinctEmails).toBe(1);
  });

  it("is as fresh as a commit's end: a commit that waited for the write lock leaves the replica answering", async () => {
    const thread = open({ replicaFreshMs: 50 });
    const q: SubjectQuery = { projectId: PROJECT, kind: 'ipv4', subject: IPS[2] as string, since: [NOW - MINUTE], limit: 10 };
    await thread.insert([row('a@x.io', IPS[2] as string, NOW)]);
    await thread.velocity(q); // the thread's answer: the replica holds the subject from now on

    // Another connection holds the write lock for 200 ms (the subject: longer than the replica's 50 ms) and
    // writes nothing (its data_version stays): the thread's commit waits for it, and ends after the release.
    const locker = new Database(file);
    locker.exec('begin immediate');
    const order: string[] = [];
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        locker.exec('rollback');
        locker.close();
        order.push('lock released');
        resolve();
      }, 200),
    );
    await thread.insert([row('b@x.io', IPS[2] as string, NOW + 1)]);
    order.push('committed');
    await released;
    expect(order).toEqual(['lock released', 'committed']);

    // Its answer read data_version after the commit: the replica answers at once, and with the new event.
    const before = await replicaAnswers();
    const after = await thread.velocity(q);
    expect(after.total).toBe(2);
    expect((await replicaAnswers()) - before).toBe(1);
  });

  it("keeps answering after this process's own small writes (a key's last use, a domain's facts), made on the thread's connection", async () => {
    // The store's own thread and replica. Through knex's connection each of these writes changed the thread's
    // data_version, and the commit after it emptied the replica.
    const ip = IPS[0] as string;
    const record = (email: string) =>
      store.events.record({
        projectId: PROJECT,
        endpoint: 'verify',
        email,
        emailLower: email,
        baseEmail: email,
        action: 'allow',
        ipv4: ip,
        createdAt: Date.now(),
      });
    const reader = store.events.velocityReader(PROJECT);
    const read = () => reader.byIp({ ipv4: ip, ipv6: null, since: [0], limit: 10 });
    // Made through knex, before the replica holds anything: another connection's writes empty it.
    const project = await store.projects.create({ name: 'replica-writes', policy: 'default' });
    const { key } = await store.keys.create(project.id, 'access_token');
    const keyId = key.id;
    await record('a@x.io');
    await read(); // the thread's answer: the replica holds the IP from now on

    const writes: Array<[string, () => Promise<unknown>]> = [
      ["a key's last use", () => store.keys.markUsed(new Map([[keyId, Date.now()]]))],
      ["a domain's facts", () => store.domainFacts.put('x.io', 'mx', { hosts: ['mx.x.io'] }, 60_000)],
    ];
    for (const [n, [what, write]] of writes.entries()) {
      await write();
      await record(`b${n}@x.io`); // its answer carries the thread's data_version: unchanged by the write
      const before = await replicaAnswers();
      expect((await read()).total, what).toBe(n + 2);
      expect((await replicaAnswers()) - before, what).toBe(1);
    }
    expect((await store.keys.list(project.id)).find((k) => k.id === keyId)?.lastUsedAt).not.toBeNull();
    expect(await store.domainFacts.get('x.io', 'mx')).toMatchObject({ value: { hosts: ['mx.x.io'] } });
  });
});
