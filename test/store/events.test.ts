import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaValidator } from '../../src/schemas.js';
import { generateEvents } from '../../src/service/synthetic-events.js';
import { EVENT_COLUMNS } from '../../src/store/commit-statements.js';
import { openDatabase, type Store } from '../../src/store/database.js';
import { canonicalIp, createEvents, knexReads, type NewEvent } from '../../src/store/events.js';
import { addressesStatement, countsStatement, minuteOf } from '../../src/store/velocity-counters.js';
import { openPostgresTestStore, openSecondStore, openSqliteTestStore, testDatabases } from '../support/databases.js';
import { sqliteConnection } from './sqlite-connection.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;

function event(overrides: Partial<NewEvent> & Pick<NewEvent, 'projectId' | 'email'>): NewEvent {
  return {
    endpoint: 'verify',
    emailLower: overrides.email.toLowerCase(),
    baseEmail: overrides.email.toLowerCase(),
    action: 'allow',
    createdAt: NOW,
    ...overrides,
  };
}

/** Counts INSERT statements into events while `work` runs. */
async function countInserts(store: Store, work: () => Promise<unknown>): Promise<number> {
  return (await insertSizes(store, work)).length;
}

/** The rows of each INSERT statement into events while `work` runs (its bindings, 14 per row). */
async function insertSizes(store: Store, work: () => Promise<unknown>): Promise<number[]> {
  const sizes: number[] = [];
  const listener = (q: { sql: string; bindings?: readonly unknown[] }) => {
    if (/^insert into ["`]?events/i.test(q.sql)) sizes.push((q.bindings?.length ?? 0) / EVENT_COLUMNS.length);
  };
  store.knex.on('query', listener);
  try {
    await work();
  } finally {
    store.knex.removeListener('query', listener);
  }
  return sizes;
}

describe('canonicalIp', () => {
  it.each([
    ['2001:DB8:0:0::1', '2001:db8::1'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['', null],
    [null, null],
    [undefined, null],
    ['not-an-ip', 'not-an-ip'],
  ])('%j → %j', (input, expected) => {
    expect(canonicalIp(input)).toBe(expected);
  });
});

describe.each(testDatabases)('events on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('stores every column once the promise resolves', async () => {
    await store.events.record({
      projectId: 'prj_rows',
      endpoint: 'intelligence',
      email: 'Jo.Doe+x@Example.com',
      emailLower: 'jo.doe+x@example.com',
      baseEmail: 'jodoe@example.com',
      domain: 'example.com',
      ipv4: '198.51.100.2',
      ipv6: '2001:DB8::0:7',
      device: 'dev_hash',
      fingerprintToken: 'tok_hash',
      action: 'block',
      riskScore: 87,
      policyRevision: '0123456789abcdef',
      recordedFacts: { mx_record_count: 2, has_website: null },
      createdAt: NOW,
      decisionId: '01900000-0000-7000-8000-00000000000a',
      requestId: 'req-rows',
      policyName: 'default',
      errors: ['disposable_domain'],
      warnings: ['role_based', 'new_domain'],
      parentRule: 2,
    });
    const rows = await store.knex('events').where({ project_id: 'prj_rows' });
    expect(rows).toHaveLength(1);
    expect({ ...rows[0], id: undefined, created_at: Number(rows[0].created_at) }).toEqual({
      id: undefined,
      project_id: 'prj_rows',
      endpoint: 'intelligence',
      email: 'Jo.Doe+x@Example.com',
      email_lower: 'jo.doe+x@example.com',
      base_email: 'jodoe@example.com',
      domain: 'example.com',
      ipv4: '198.51.100.2',
      ipv6: '2001:db8::7',
      device: 'dev_hash',
      fingerprint_token: 'tok_hash',
      action: 'block',
      risk_score: 87,
      policy_revision: '0123456789abcdef',
      recorded_facts: '{"mx_record_count":2,"has_website":null}',
      created_at: NOW,
      decision_id: '01900000-0000-7000-8000-00000000000a',
      request_id: 'req-rows',
      policy_name: 'default',
      errors: 'disposable_domain',
      warnings: 'role_based new_domain',
      parent_rule: 2,
    });
  });

  it('stores absent optional columns as null and defaults the time to now', async () => {
    const before = Date.now();
    await store.events.record({ projectId: 'prj_nulls', endpoint: 'verify', email: 'a@b.c', emailLower: 'a@b.c', baseEmail: 'a@b.c', action: 'allow' });
    const row = await store.knex('events').where({ project_id: 'prj_nulls' }).first();
    expect(row).toMatchObject({
      domain: null,
      ipv4: null,
      ipv6: null,
      device: null,
      risk_score: null,
      decision_id: null,
      request_id: null,
      policy_name: null,
      errors: null,
      warnings: null,
      parent_rule: null,
    });
    expect(Number(row.created_at)).toBeGreaterThanOrEqual(before);
    expect(Number(row.created_at)).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    ['a missing email', { email: '' }, /event.email/],
    ['a missing lower-cased address', { emailLower: undefined as unknown as string }, /event.emailLower/],
    ['a missing base address', { baseEmail: '' }, /event.baseEmail/],
    ['a fractional time', { createdAt: 1.5 }, /event.createdAt/],
    ['a fractional risk score', { riskScore: 3.2 }, /event.riskScore/],
    ['a non-string device', { device: 7 as unknown as string }, /event.device/],
  ])('rejects %s alone, leaving its neighbours to commit', async (_label, bad, message) => {
    const good = event({ projectId: 'prj_bad_neighbour', email: `n${Math.random()}@x.io` });
    const results = await Promise.allSettled([store.events.record(good), store.events.record({ ...event({ projectId: 'prj_bad', email: 'b@x.io' }), ...bad })]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(message) } });
    expect(await store.knex('events').where({ project_id: 'prj_bad' })).toHaveLength(0);
  });

  it('group-commits 100 concurrent records, every promise resolved', async () => {
    const settled: string[] = [];
    const inserts = await insertSizes(store, () =>
      Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store.events.record(event({ projectId: 'prj_group', email: `u${i}@x.io`, createdAt: NOW + i })).then(() => settled.push(`u${i}`)),
        ),
      ),
    );
    expect(inserts.reduce((a, b) => a + b, 0)).toBe(100);
    // One turn's rows: one commit, one INSERT.
    expect(inserts).toEqual([100]);
    expect(settled).toHaveLength(100);
    const [{ n }] = (await store.knex('events').where({ project_id: 'prj_group' }).count({ n: '*' })) as [{ n: unknown }];
    expect(Number(n)).toBe(100);
  });

  it('commits a large tick in bounded statements and bounded commits', async () => {
    const inserts = await insertSizes(store, () =>
      Promise.all(Array.from({ length: 5_750 }, (_, i) => store.events.record(event({ projectId: 'prj_big', email: `u${i}@x.io` })))),
    );
    expect(inserts.reduce((a, b) => a + b, 0)).toBe(5_750);
    // 5,000 rows in the first commit (10 statements of 500), 750 in the next (2 statements).
    expect(inserts).toEqual([500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 250]);
    const [{ n }] = (await store.knex('events').where({ project_id: 'prj_big' }).count({ n: '*' })) as [{ n: unknown }];
    expect(Number(n)).toBe(5_750);
  });

  it('rejects every caller of a commit that fails, and recovers afterwards', async () => {
    await store.knex.schema.renameTable('events', 'events_hidden');
    const results = await Promise.allSettled([1, 2, 3].map((i) => store.events.record(event({ projectId: 'prj_fail', email: `f${i}@x.io` }))));
    await store.knex.schema.renameTable('events_hidden', 'events');
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await store.events.record(event({ projectId: 'prj_fail', email: 'after@x.io' }));
    expect(await store.knex('events').where({ project_id: 'prj_fail' }).pluck('email')).toEqual(['after@x.io']);
  });

  it('flush waits for records in flight', async () => {
    let done = 0;
    for (let i = 0; i < 5; i++) void store.events.record(event({ projectId: 'prj_flush', email: `u${i}@x.io` })).then(() => (done += 1));
    await store.events.flush();
    await Promise.resolve();
    expect(done).toBe(5);
  });
});

/**
 * An event the database itself refuses, past every check of events.ts: PostgreSQL cannot store U+0000 in
 * text, nor a btree entry over 2,704 bytes (random four-byte characters do not compress); SQLite stores
 * both, so there a trigger refuses one address.
 */
const poisons: Record<'sqlite' | 'postgres', Array<{ name: string; email: string; refusal: RegExp; install?: (knex: Knex) => Promise<unknown> }>> = {
  postgres: [
    { name: 'a U+0000 in the address', email: 'poi\u0000son@x.io', refusal: /invalid byte sequence|0x00/ },
    {
      name: 'a 4 KB index entry',
      email: `${Array.from({ length: 1_000 }, (_, i) => String.fromCodePoint(0x10000 + ((i * 7919) % 0xf0000))).join('')}@x.io`,
      refusal: /index row size/,
    },
  ],
  sqlite: [
    {
      name: 'an address a trigger refuses',
      email: 'poison@x.io',
      refusal: /refused/,
      install: (knex) =>
        knex.raw("create trigger refuse_poison before insert on events when new.email = 'poison@x.io' begin select raise(abort, 'refused'); end"),
    },
  ],
};

describe.each(testDatabases)('a commit holding an event the database refuses, on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it.each(poisons[db.name])(
    '$name among 300 concurrent events of two projects: only its caller fails, every other event and its counters are stored',
    async (poison) => {
      await poison.install?.(store.knex);
      const projects = [`prj_a_${db.name}`, `prj_b_${db.name}`];
      await store.knex('events').whereIn('project_id', projects).del();
      await store.knex('velocity_counts').whereIn('project_id', projects).del();
      await store.knex('velocity_addresses').whereIn('project_id', projects).del();
      const POISONED = 150;
      const events = Array.from({ length: 300 }, (_, i) =>
        event({ projectId: projects[i % 2] as string, email: i === POISONED ? poison.email : `u${i}@x.io`, ipv4: '198.51.100.7', createdAt: NOW + i }),
      );
      let results: PromiseSettledResult<void>[] = [];
      const inserts = await countInserts(store, async () => {
        results = await Promise.allSettled(events.map((e) => store.events.record(e)));
      });
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
      expect(failed).toEqual([POISONED]);
      expect(String((results[POISONED] as PromiseRejectedResult).reason)).toMatch(poison.refusal);
      expect(inserts).toBeGreaterThan(1); // the whole batch was tried first, then event by event
      for (const [p, projectId] of projects.entries()) {
        const stored = (await store.knex('events').where({ project_id: projectId }).orderBy('created_at').pluck('email')) as string[];
        const expected = events.filter((_e, i) => i % 2 === p && i !== POISONED).map((e) => e.email);
        expect(stored).toEqual(expected);
        const v = await store.events.velocityReader(projectId).byIp({ ipv4: '198.51.100.7', ipv6: null, since: [], limit: 1 });
        expect({ total: v.total, distinct: v.distinctEmails }).toEqual({ total: expected.length, distinct: expected.length });
      }
      await store.events.record(event({ projectId: projects[0] as string, email: 'after@x.io' })); // the writer goes on
    },
  );
});

describe('a commit that fails because the database cannot be reached', () => {
  it('rejects its callers at once, without retrying event by event (3 events, 1 connection attempt)', async () => {
    const unreachable = knexFactory({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      log: { warn() {}, error() {}, debug() {}, deprecate() {} }, // knex's own console lines about the refused connection
    });
    let attempts = 0;
    (unreachable.client as { pool: { on(event: string, listener: () => void): void } }).pool.on('createRequest', () => {
      attempts += 1;
    });
    try {
      const events = createEvents(unreachable);
      const results = await Promise.allSettled([1, 2, 3].map((i) => events.record(event({ projectId: 'prj_down', email: `d${i}@x.io` }))));
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/ECONNREFUSED/);
      expect(attempts).toBe(1);
    } finally {
      await unreachable.destroy();
    }
  });
});

describe('the largest address validation lets through is stored and indexed on postgres', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openPostgresTestStore();
  });
  afterAll(() => store.close());

  // 800 UTF-8 bytes (the schema's maxUtf8Bytes) of the characters whose stored forms grow most: U+1D160
  // and its kin lower-case and NFC-normalise (plugins/normalize, email_lower and base_email) to three
  // four-byte characters, three times the bytes. No character grows more.
  const expanding = [0x1d15e, 0x1d15f, 0x1d160, 0x1d161, 0x1d162, 0x1d163, 0x1d164, 0x1d1bb, 0x1d1bc, 0x1d1bd, 0x1d1be, 0x1d1bf, 0x1d1c0];
  const local = Array.from({ length: 197 }, (_, i) => String.fromCodePoint(expanding[(i * 7919) % expanding.length] as number)).join('');
  const email = `${local}@example.com`;

  it('is accepted by the verify schema and indexed in events and both counter tables', async () => {
    expect(Buffer.byteLength(email)).toBe(800);
    expect(schemaValidator('verify-request')({ email_address: email })).toBe(true);
    const lower = email.toLowerCase().normalize('NFC');
    expect(Buffer.byteLength(lower)).toBeGreaterThan(2_000);
    await store.events.record(event({ projectId: 'prj_max', email, emailLower: lower, baseEmail: lower, ipv4: '192.0.2.9', device: 'd'.repeat(22) }));
    expect(await store.knex('events').where({ project_id: 'prj_max', base_email: lower }).pluck('email')).toEqual([email]);
    const v = await store.events.velocityReader('prj_max').byDevice({ device: 'd'.repeat(22), since: [], limit: 5 });
    expect(v.emails.map((e) => e.email)).toEqual([lower]);
  });
});

describe.each(testDatabases)('velocity history on $name', (db) => {
  let store: Store;
  const IP4 = '203.0.113.7';
  const IP6 = '2001:db8::1';

  beforeAll(async () => {
    store = await db.open();
    const at = (ago: number) => NOW - ago;
    await Promise.all([
      store.events.record(event({ projectId: 'prj_a', email: 'a@x.io', ipv4: IP4, createdAt: at(1 * MIN) })),
      store.events.record(event({ projectId: 'prj_a', email: 'B@x.io', ipv4: IP4, createdAt: at(5 * MIN) })), // on the 5-minute boundary
      store.events.record(event({ projectId: 'prj_a', email: 'b@x.io', ipv4: IP4, createdAt: at(20 * MIN) })),
      store.events.record(event({ projectId: 'prj_a', email: 'c@x.io', ipv4: IP4, createdAt: at(30 * MIN + 1) })), // just outside 30 minutes
      store.events.record(event({ projectId: 'prj_a', email: 'a@x.io', ipv4: IP4, createdAt: at(3 * HOUR + 1) })),
      store.events.record(event({ projectId: 'prj_a', email: 'e@x.io', ipv4: IP4, ipv6: IP6, createdAt: at(3 * MIN) })),
      store.events.record(event({ projectId: 'prj_a', email: 'd@x.io', ipv6: IP6, createdAt: at(2 * MIN) })),
      store.events.record(event({ projectId: 'prj_a', email: 'other-ip@x.io', ipv4: '198.51.100.1', createdAt: at(MIN) })),
      store.events.record(event({ projectId: 'prj_b', email: 'z@x.io', ipv4: IP4, ipv6: IP6, createdAt: at(MIN) })),
    ]);
  });
  afterAll(() => store.close());

  const since = [NOW - 5 * MIN, NOW - 30 * MIN, NOW - 3 * HOUR];

  it('by IPv4: distinct addresses newest first (case-folded), totals and inclusive windows', async () => {
    const v = await store.events.velocityReader('prj_a').byIp({ ipv4: IP4, ipv6: null, since, limit: 10 });
    expect(v).toEqual({
      emails: [
        { email: 'a@x.io', at: NOW - MIN },
        { email: 'e@x.io', at: NOW - 3 * MIN },
        { email: 'b@x.io', at: NOW - 5 * MIN },
        { email: 'c@x.io', at: NOW - 30 * MIN - 1 },
      ],
      distinctEmails: 4,
      total: 6,
      since: [3, 4, 5],
    });
  });

  it('by IPv6, written any way', async () => {
    const v = await store.events.velocityReader('prj_a').byIp({ ipv4: null, ipv6: '2001:DB8:0::1', since, limit: 10 });
    expect(v).toEqual({
      emails: [
        { email: 'd@x.io', at: NOW - 2 * MIN },
        { email: 'e@x.io', at: NOW - 3 * MIN },
      ],
      distinctEmails: 2,
      total: 2,
      since: [2, 2, 2],
    });
  });

  it("by IPv4 and IPv6: the lists merged, each count the larger of the two addresses'", async () => {
    const v = await store.events.velocityReader('prj_a').byIp({ ipv4: IP4, ipv6: IP6, since, limit: 10 });
    expect(v.emails.map((e) => e.email)).toEqual(['a@x.io', 'd@x.io', 'e@x.io', 'b@x.io', 'c@x.io']);
    // IPv4: 6 validations, [3, 4, 5] in the windows; IPv6: 2, [2, 2, 2]. Distinct: the merged list's 5.
    expect([v.distinctEmails, v.total, v.since]).toEqual([5, 6, [3, 4, 5]]);
  });

  it('limits the list but not the counts', async () => {
    const v = await store.events.velocityReader('prj_a').byIp({ ipv4: IP4, ipv6: null, since: [], limit: 2 });
    expect(v).toEqual({
      emails: [
        { email: 'a@x.io', at: NOW - MIN },
        { email: 'e@x.io', at: NOW - 3 * MIN },
      ],
      distinctEmails: 4,
      total: 6,
      since: [],
    });
  });

  it('never shows another project’s rows', async () => {
    const b = await store.events.velocityReader('prj_b').byIp({ ipv4: IP4, ipv6: IP6, since, limit: 10 });
    expect(b).toEqual({ emails: [{ email: 'z@x.io', at: NOW - MIN }], distinctEmails: 1, total: 1, since: [1, 1, 1] });
    const none = await store.events.velocityReader('prj_c').byIp({ ipv4: IP4, ipv6: IP6, since, limit: 10 });
    expect(none).toEqual({ emails: [], distinctEmails: 0, total: 0, since: [0, 0, 0] });
  });

  it('answers empty without a query when no IP is given', async () => {
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    store.knex.on('query', listener);
    const v = await store.events.velocityReader('prj_a').byIp({ ipv4: null, ipv6: null, since, limit: 10 });
    store.knex.removeListener('query', listener);
    expect(v).toEqual({ emails: [], distinctEmails: 0, total: 0, since: [0, 0, 0] });
    expect(queries).toEqual([]);
  });

  it('byEmail: occurrences of a base address in one project, newest first', async () => {
    const v = await store.events.byEmail('prj_a', 'a@x.io', 10);
    expect(v).toEqual({
      items: [
        { email: 'a@x.io', baseEmail: 'a@x.io', at: NOW - MIN },
        { email: 'a@x.io', baseEmail: 'a@x.io', at: NOW - 3 * HOUR - 1 },
      ],
      count: 2,
    });
    expect(await store.events.byEmail('prj_a', 'a@x.io', 1)).toMatchObject({ items: [{ at: NOW - MIN }], count: 2 });
    expect(await store.events.byEmail('prj_b', 'a@x.io', 10)).toEqual({ items: [], count: 0 });
  });
});

describe('velocity reads on postgres are bounded', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openPostgresTestStore();
    await store.events.record({
      projectId: 'prj_a',
      endpoint: 'verify',
      email: 'a@x.io',
      emailLower: 'a@x.io',
      baseEmail: 'a@x.io',
      ipv4: '192.0.2.1',
      action: 'allow',
    });
  });
  afterAll(() => store.close());

  it('a read the database cannot answer in time fails (and is cancelled); the next one succeeds', async () => {
    const reader = createEvents(store.knex, knexReads(store.knex, { timeoutMs: 300, cancel: true })).velocityReader('prj_a');
    const query = { ipv4: '192.0.2.1', ipv6: null, since: [0], limit: 10 };
    const lock = await store.knex.transaction();
    try {
      await lock.raw('lock table velocity_counts in access exclusive mode');
      await expect(reader.byIp(query)).rejects.toThrow(/Defined query timeout of 300ms exceeded/);
    } finally {
      await lock.rollback();
    }
    expect(await reader.byIp(query)).toMatchObject({ distinctEmails: 1, total: 1 });
  });
});

describe.each(testDatabases)('window edges (minute-granular counts, exact distinct addresses) on $name', (db) => {
  let store: Store;
  const IP = '192.0.2.123';
  const T = NOW + 30_000; // half a minute into a minute
  const start = T - 5 * MIN; // a 5-minute window's start: also half a minute into its minute
  const rows: Array<[string, number]> = [
    ['at-start@x.io', start], // exactly on the start: inside
    ['minute-begins@x.io', start - 30_000], // before the start, first ms of its minute: counted (the whole minute is)
    ['minute-before@x.io', start - 30_000 - 1], // last ms of the minute before: outside
  ];

  beforeAll(async () => {
    store = await db.open();
    await Promise.all(rows.map(([email, createdAt]) => store.events.record(event({ projectId: 'prj_edges', email, ipv4: IP, createdAt }))));
  });
  afterAll(() => store.close());

  it('a window counts the whole minute holding its start, never fewer than exact; distinct addresses are exact', async () => {
    const v = await store.events.velocityReader('prj_edges').byIp({ ipv4: IP, ipv6: null, since: [start, start + 1, T - 4 * MIN - 30_000], limit: 10 });
    // Validations from `start`: 2 (exact: 1, at most one minute more); from `start + 1`: the same minute, 2;
    // from the next minute's first ms: 0.
    expect(v.since).toEqual([2, 2, 0]);
    expect(v.total).toBe(3);
    // The address list keeps exact times, so distinct-per-window counts taken from it are exact.
    expect(v.emails.filter((e) => e.at >= start).map((e) => e.email)).toEqual(['at-start@x.io']);
  });
});

describe.each(testDatabases)('two service instances writing one IP on $name', (db) => {
  it('never count one address twice, nor lose a validation', async () => {
    const store = await db.open();
    const second = await openSecondStore(store);
    try {
      const IP = '192.0.2.222';
      // Both instances record the same five addresses at once (each its own group commit), twice over.
      const writes = [store, second, store, second].flatMap((s, round) =>
        Array.from({ length: 5 }, (_, i) => s.events.record(event({ projectId: 'prj_two', email: `same${i}@x.io`, ipv4: IP, createdAt: NOW - round }))),
      );
      await Promise.all(writes);
      const v = await store.events.velocityReader('prj_two').byIp({ ipv4: IP, ipv6: null, since: [NOW - MIN], limit: 10 });
      expect([v.total, v.distinctEmails, v.emails.length, v.since]).toEqual([20, 5, 5, [20]]);
    } finally {
      await second.close();
      await store.close();
    }
  });
});

describe.each(testDatabases)('addresses per IP, bases per email on $name', (db) => {
  let store: Store;
  const IP = '192.0.2.9';
  const row = (email: string, emailLower: string, baseEmail: string, ago: number): NewEvent => ({
    projectId: 'prj_forms',
    endpoint: 'verify',
    email,
    emailLower,
    baseEmail,
    ipv4: IP,
    action: 'allow',
    createdAt: NOW - ago,
  });

  beforeAll(async () => {
    store = await db.open();
    await Promise.all(
      [
        row('a+1@x.com', 'a+1@x.com', 'a@x.com', 1 * MIN),
        row('a+2@x.com', 'a+2@x.com', 'a@x.com', 2 * MIN),
        row('A+1@X.com', 'a+1@x.com', 'a@x.com', 3 * MIN),
        row('ÄRGER@x.com', 'ärger@x.com', 'ärger@x.com', 4 * MIN),
        row('ärger@x.com', 'ärger@x.com', 'ärger@x.com', 5 * MIN),
      ].map((e) => store.events.record(e)),
    );
  });
  afterAll(() => store.close());

  it('per IP: plus-tagged addresses are separate accounts, case differences are not', async () => {
    const v = await store.events.velocityReader('prj_forms').byIp({ ipv4: IP, ipv6: null, since: [NOW - 2 * MIN], limit: 10 });
    expect(v).toEqual({
      emails: [
        { email: 'a+1@x.com', at: NOW - MIN },
        { email: 'a+2@x.com', at: NOW - 2 * MIN },
        { email: 'ärger@x.com', at: NOW - 4 * MIN },
      ],
      distinctEmails: 3,
      total: 5,
      since: [2],
    });
  });

  it('byEmail groups every plus tag and case under the base address', async () => {
    const v = await store.events.byEmail('prj_forms', 'a@x.com', 10);
    expect(v).toEqual({
      items: [
        { email: 'a+1@x.com', baseEmail: 'a@x.com', at: NOW - MIN },
        { email: 'a+2@x.com', baseEmail: 'a@x.com', at: NOW - 2 * MIN },
        { email: 'A+1@X.com', baseEmail: 'a@x.com', at: NOW - 3 * MIN },
      ],
      count: 3,
    });
    expect(await store.events.byEmail('prj_forms', 'a+1@x.com', 10)).toEqual({ items: [], count: 0 });
  });
});

describe.each(testDatabases)('an address seen again in a later commit, on $name', (db) => {
  it('keeps its latest time (an older sighting changes nothing) and is counted once; every counter row as stored', async () => {
    const store = await db.open();
    try {
      const IP = '192.0.2.77';
      const at = (email: string, ago: number) => event({ projectId: 'prj_again', email, ipv4: IP, createdAt: NOW - ago });
      await Promise.all([store.events.record(at('a@x.io', 10 * MIN)), store.events.record(at('b@x.io', 5 * MIN))]);
      // One commit: a again but earlier than it was seen, b again later, c new.
      await Promise.all([store.events.record(at('a@x.io', 20 * MIN)), store.events.record(at('b@x.io', MIN)), store.events.record(at('c@x.io', 2 * MIN))]);
      const v = await store.events.velocityReader('prj_again').byIp({ ipv4: IP, ipv6: null, since: [NOW - 3 * MIN], limit: 10 });
      expect(v).toEqual({
        emails: [
          { email: 'b@x.io', at: NOW - MIN },
          { email: 'c@x.io', at: NOW - 2 * MIN },
          { email: 'a@x.io', at: NOW - 10 * MIN },
        ],
        distinctEmails: 3,
        total: 5,
        since: [2],
      });
      const rows = await store.knex('velocity_addresses').where({ project_id: 'prj_again', kind: 'ipv4' }).orderBy('address').select('address', 'last_seen');
      expect(rows.map((r) => [r.address, Number(r.last_seen)])).toEqual([
        ['a@x.io', NOW - 10 * MIN],
        ['b@x.io', NOW - MIN],
        ['c@x.io', NOW - 2 * MIN],
      ]);
      const totals = await store.knex('velocity_counts').where({ project_id: 'prj_again', bucket: Number.MAX_SAFE_INTEGER }).orderBy(['kind', 'subject']);
      expect(totals.map((r) => [r.kind, r.subject, Number(r.validations), Number(r.addresses)])).toEqual([
        ['email', 'a@x.io', 2, 0],
        ['email', 'b@x.io', 2, 0],
        ['email', 'c@x.io', 1, 0],
        ['ipv4', IP, 5, 3],
      ]);
    } finally {
      await store.close();
    }
  });
});

describe.each(testDatabases)('pruning on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('deletes events older than the cutoff in bounded batches', async () => {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => store.events.record(event({ projectId: i % 2 ? 'prj_a' : 'prj_b', email: `u${i}@x.io`, createdAt: NOW + i }))),
    );
    const deletes: string[] = [];
    const listener = (q: { sql: string }) => {
      if (/^delete from ["`]?events/i.test(q.sql)) deletes.push(q.sql);
    };
    store.knex.on('query', listener);
    const deleted = await store.events.pruneOlderThan(NOW + 20, 6);
    store.knex.removeListener('query', listener);
    expect(deleted).toBe(20);
    expect(deletes).toHaveLength(4); // 6 + 6 + 6 + 2
    const left = (await store.knex('events').pluck('created_at')).map(Number).sort((a, b) => a - b);
    expect(left).toEqual([NOW + 20, NOW + 21, NOW + 22, NOW + 23, NOW + 24]);
    expect(await store.events.pruneOlderThan(NOW + 20, 6)).toBe(0);
  });

  it('takes pruned events off the counters: totals, windows, distinct addresses and lists are those of the events kept', async () => {
    const IP = '192.0.2.77';
    const at = (minutesAgo: number) => NOW - minutesAgo * MIN;
    // Oldest first: old@ three times long ago, then kept@ and old@ again recently.
    const rows = [
      { email: 'old@x.io', createdAt: at(120) },
      { email: 'old@x.io', createdAt: at(119) },
      { email: 'gone@x.io', createdAt: at(118) },
      { email: 'kept@x.io', createdAt: at(10) },
      { email: 'old@x.io', createdAt: at(5) },
    ];
    await Promise.all(rows.map((r) => store.events.record(event({ projectId: 'prj_prune', ipv4: IP, device: 'dev_p', ...r }))));
    const reader = store.events.velocityReader('prj_prune');
    const before = await reader.byIp({ ipv4: IP, ipv6: null, since: [at(180)], limit: 10 });
    expect([before.total, before.distinctEmails, before.since]).toEqual([5, 3, [5]]);

    expect(await store.events.pruneOlderThan(at(60), 2)).toBe(3);
    const after = await reader.byIp({ ipv4: IP, ipv6: null, since: [at(180)], limit: 10 });
    expect(after).toEqual({
      emails: [
        { email: 'old@x.io', at: at(5) },
        { email: 'kept@x.io', at: at(10) },
      ],
      distinctEmails: 2,
      total: 2,
      since: [2],
    });
    expect((await reader.byDevice({ device: 'dev_p', since: [], limit: 10 })).total).toBe(2);
    expect(await store.events.byEmail('prj_prune', 'old@x.io', 10)).toMatchObject({ count: 1 });
    expect(await store.events.byEmail('prj_prune', 'gone@x.io', 10)).toEqual({ items: [], count: 0 });
    // Nothing older than the cutoff is left in the counters, and no total of a subject without events.
    const minutes = await store.knex('velocity_counts').where({ project_id: 'prj_prune' }).whereNot('bucket', Number.MAX_SAFE_INTEGER);
    expect(minutes.map((r) => Number(r.bucket)).every((b) => b >= Math.floor(at(60) / MIN))).toBe(true);
    expect(await store.knex('velocity_counts').where({ project_id: 'prj_prune', subject: 'gone@x.io' })).toEqual([]);
    expect(await store.knex('velocity_addresses').where({ project_id: 'prj_prune', address: 'gone@x.io' })).toEqual([]);
  });
});

describe('velocity query plan on sqlite', () => {
  it('reads counters through their primary key and addresses through the covering index', async () => {
    const store = await openSqliteTestStore();
    try {
      const plan = async (statement: { sql: string; bindings: unknown[] }) =>
        ((await store.knex.raw(`explain query plan ${statement.sql}`, statement.bindings as Knex.RawBinding[])) as Array<{ detail: string }>)
          .map((r) => r.detail)
          .join('\n');
      expect(await plan(countsStatement('prj_a', 'ipv4', '203.0.113.7', minuteOf(NOW) - 180))).toMatch(
        /SEARCH velocity_counts USING INDEX sqlite_autoindex_velocity_counts_1 \(project_id=\? AND kind=\? AND subject=\? AND bucket>\?\)/,
      );
      const addresses = await plan(addressesStatement('prj_a', 'device', 'dev', 100));
      expect(addresses).toMatch(/SEARCH velocity_addresses USING COVERING INDEX velocity_addresses_newest_index \(project_id=\? AND kind=\? AND subject=\?\)/);
      expect(addresses).not.toMatch(/TEMP B-TREE/);
    } finally {
      await store.close();
    }
  });
});

describe.each(testDatabases)('velocity of a busy IP on $name', (db) => {
  let store: Store;
  const IP = '198.51.100.77';
  const ROWS = 2_010;

  beforeAll(async () => {
    store = await db.open();
    // Oldest first: 30 distinct addresses, each used ROWS / 30 times; the newest 10 rows in the last minute.
    await Promise.all(
      Array.from({ length: ROWS }, (_, i) =>
        store.events.record(event({ projectId: 'prj_busy', email: `user${i % 30}@x.io`, ipv4: IP, createdAt: NOW - (ROWS - i) * 1000 })),
      ),
    );
  });
  afterAll(() => store.close());

  it('counts the whole history, past the rows read for the list', async () => {
    const v = await store.events.velocityReader('prj_busy').byIp({ ipv4: IP, ipv6: null, since: [NOW - 10_000, 0], limit: 5 });
    expect(v.total).toBe(ROWS);
    expect(v.distinctEmails).toBe(30);
    // Minute-granular windows: NOW - 10 s falls in the minute before NOW (a minute boundary), whose 60 rows all count.
    expect(v.since).toEqual([60, ROWS]);
    const newest = ROWS - 1;
    expect(v.emails).toEqual(Array.from({ length: 5 }, (_, k) => ({ email: `user${(newest - k) % 30}@x.io`, at: NOW - (k + 1) * 1000 })));
  });

  it('lists every distinct address up to the limit; another project sees nothing', async () => {
    const v = await store.events.velocityReader('prj_busy').byIp({ ipv4: IP, ipv6: null, since: [NOW - 10_000], limit: 100 });
    expect(v.emails).toHaveLength(30);
    const few = await store.events.velocityReader('prj_a_quiet').byIp({ ipv4: IP, ipv6: null, since: [0], limit: 5 });
    expect(few).toEqual({ emails: [], distinctEmails: 0, total: 0, since: [0] });
  });
});

describe.each(testDatabases)('velocity reads stay bounded however long the history, on $name', (db) => {
  let store: Store;
  const IP = '198.51.100.200';
  const DEVICE = 'dev_flood';
  /** 50 times the list's limit and 250 times the history's, over 360 minutes: twice the 181 a window reads. */
  const EVENTS = 5_000;
  const NOW_GEN = 1_800_000_000_000;

  beforeAll(async () => {
    store = await db.open();
    // Through the generate path (the store's own write path): 5,000 distinct addresses over 6 hours.
    await generateEvents(store.events, { projectId: 'prj_flood', count: EVENTS, ipv4: IP, ipv6: null, device: DEVICE, spreadMinutes: 360, now: NOW_GEN });
    await store.events.record(event({ projectId: 'prj_flood', email: 'user000000@example.com', createdAt: NOW_GEN })); // a second occurrence
  }, 120_000);
  afterAll(() => store.close());

  /** Rows each statement returned while `work` ran (every read goes through knex here). */
  async function rowsPerStatement(work: (events: ReturnType<typeof createEvents>) => unknown): Promise<number[]> {
    const counts: number[] = [];
    const listener = (response: unknown) => counts.push(Array.isArray(response) ? response.length : ((response as { rows?: unknown[] }).rows?.length ?? 0));
    store.knex.on('query-response', listener);
    try {
      await work(createEvents(store.knex, knexReads(store.knex)));
    } finally {
      store.knex.removeListener('query-response', listener);
    }
    return counts;
  }

  it('answers from the counters: exact totals, windows and distinct counts', async () => {
    const reader = store.events.velocityReader('prj_flood');
    const since = [NOW_GEN - 5 * MIN, NOW_GEN - 3 * HOUR];
    const v = await reader.byIp({ ipv4: IP, ipv6: null, since, limit: 100 });
    expect([v.total, v.distinctEmails, v.emails.length]).toEqual([EVENTS, EVENTS, 100]);
    expect(v.emails[0]).toEqual({ email: `user${String(EVENTS - 1).padStart(6, '0')}@example.com`, at: NOW_GEN });
    // 5,000 events evenly over 360 minutes: ~13.9 a minute; windows count whole minutes, never fewer.
    const perMinute = (EVENTS - 1) / 360;
    expect(v.since[0]).toBeGreaterThanOrEqual(Math.floor(5 * perMinute));
    expect(v.since[0]).toBeLessThanOrEqual(Math.ceil(6 * perMinute) + 1);
    expect(v.since[1]).toBeGreaterThanOrEqual(Math.floor(180 * perMinute));
    expect(v.since[1]).toBeLessThanOrEqual(Math.ceil(181 * perMinute) + 1);
    expect((await reader.byDevice({ device: DEVICE, since: [], limit: 100 })).distinctEmails).toBe(EVENTS);
    expect((await store.events.byEmail('prj_flood', 'user000000@example.com', 20)).count).toBe(2);
    expect((await store.events.byIpHistory('prj_flood', { ipv4: IP, ipv6: null }, 20)).count).toBe(EVENTS);
  });

  it('reads at most 182 counter rows and `limit` address or event rows per statement', async () => {
    const since = [NOW_GEN - 5 * MIN, NOW_GEN - 3 * HOUR, 0]; // a window start at 0 reads no further than 181 minutes
    const ipReads = await rowsPerStatement((e) => e.velocityReader('prj_flood').byIp({ ipv4: IP, ipv6: IP.replace(/\d+$/, '1'), since, limit: 100 }));
    expect(ipReads.length).toBe(4);
    expect(Math.max(...ipReads)).toBeLessThanOrEqual(182);
    expect(ipReads.reduce((a, b) => a + b)).toBeLessThanOrEqual(2 * 182 + 2 * 100);
    const deviceReads = await rowsPerStatement((e) => e.velocityReader('prj_flood').byDevice({ device: DEVICE, since: [], limit: 100 }));
    expect([...deviceReads].sort((a, b) => a - b)).toEqual([1, 100]); // two statements at once: either may answer first
    const emailReads = await rowsPerStatement((e) => e.byEmail('prj_flood', 'user000000@example.com', 20));
    expect([...emailReads].sort((a, b) => a - b)).toEqual([1, 2]);
    const ipHistoryReads = await rowsPerStatement((e) => e.byIpHistory('prj_flood', { ipv4: IP, ipv6: null }, 20));
    expect([...ipHistoryReads].sort((a, b) => a - b)).toEqual([1, 20]);
  });
});

describe.each(testDatabases)("a device's spread and a fingerprint token's uses on $name", (db) => {
  let store: Store;
  const USES = 3_000;
  const T0 = 1_800_000_000_000;
  /** One token and one device presented USES times, each from its own IPv4 (its own /24 every 256), for 30 addresses. */
  const use = (i: number): NewEvent =>
    event({
      projectId: 'prj_spread',
      email: `U${i % 30}@x.io`,
      ipv4: `10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`,
      device: 'dev_spread',
      fingerprintToken: 'tok_spread',
      createdAt: T0 + i * 1000,
    });

  beforeAll(async () => {
    store = await db.open();
    await Promise.all(Array.from({ length: USES }, (_, i) => store.events.record(use(i))));
    await store.events.record(event({ projectId: 'prj_other', email: 'z@x.io', ipv4: '10.0.0.1', device: 'dev_spread', fingerprintToken: 'tok_spread' }));
  }, 60_000);
  afterAll(() => store.close());

  it("counts a device's IPs and networks exactly, newest first, within one project", async () => {
    const reader = store.events.velocityReader('prj_spread');
    const ips = await reader.spread({ kind: 'device_ip', subject: 'dev_spread', limit: 100 });
    expect([ips.total, ips.distinct, ips.seen.length]).toEqual([USES, USES, 100]);
    expect(ips.seen[0]).toEqual({ value: '10.0.11.183', at: T0 + (USES - 1) * 1000 });
    const networks = await reader.spread({ kind: 'device_network', subject: 'dev_spread', limit: 100 });
    expect([networks.distinct, networks.seen[0]?.value]).toEqual([Math.ceil(USES / 256), '10.0.11.0/24']);
    expect((await store.events.velocityReader('prj_other').spread({ kind: 'device_ip', subject: 'dev_spread', limit: 10 })).distinct).toBe(1);
  });

  it("reads a token's newest uses, within one project", async () => {
    const uses = await store.events.velocityReader('prj_spread').tokenUses({ token: 'tok_spread', limit: 5 });
    expect(uses).toHaveLength(5);
    expect(uses[0]).toEqual({ email: `u${(USES - 1) % 30}@x.io`, ipv4: '10.0.11.183', ipv6: null, at: T0 + (USES - 1) * 1000 });
    expect((await store.events.velocityReader('prj_other').tokenUses({ token: 'tok_spread', limit: 50 })).map((u) => u.email)).toEqual(['z@x.io']);
    expect(await store.events.velocityReader('prj_spread').tokenUses({ token: 'tok_unknown', limit: 50 })).toEqual([]);
  });

  it('reads one counter row and at most `limit` rows, however many uses are stored', async () => {
    const counts: number[] = [];
    const listener = (response: unknown) => counts.push(Array.isArray(response) ? response.length : ((response as { rows?: unknown[] }).rows?.length ?? 0));
    store.knex.on('query-response', listener);
    try {
      const reader = createEvents(store.knex, knexReads(store.knex)).velocityReader('prj_spread');
      await reader.spread({ kind: 'device_network', subject: 'dev_spread', limit: 100 });
      await reader.tokenUses({ token: 'tok_spread', limit: 50 });
    } finally {
      store.knex.removeListener('query-response', listener);
    }
    expect([...counts].sort((a, b) => a - b)).toEqual([1, 12, 50]);
  });

  it('takes pruned events off the totals and their values off the lists (retention)', async () => {
    await store.events.pruneOlderThan(T0 + (USES / 2) * 1000);
    const reader = store.events.velocityReader('prj_spread');
    const ips = await reader.spread({ kind: 'device_ip', subject: 'dev_spread', limit: 100 });
    expect([ips.total, ips.distinct]).toEqual([USES / 2, USES / 2]);
    const uses = await reader.tokenUses({ token: 'tok_spread', limit: 1000 });
    expect([uses.length, Math.min(...uses.map((u) => u.at)) >= T0 + (USES / 2) * 1000]).toEqual([1000, true]);
  });
});

describe('event commits on an embedded SQLite file while another connection holds the write lock', () => {
  it('wait for the lock without holding the event loop, then commit with their counters', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'email-trust-lock-'));
    const file = join(dir, 'store.sqlite');
    const store = await openDatabase(`sqlite:${file}`);
    // Another process's connection on the file (the CLI's retention, a second service).
    const other = await sqliteConnection(file);
    try {
      await store.migrate();
      await store.events.record(event({ projectId: 'prj_lock', email: 'first@x.io', ipv4: '192.0.2.77' }));
      await other.run('begin immediate'); // takes the write lock
      let recorded = false;
      const during = store.events.record(event({ projectId: 'prj_lock', email: 'during@x.io', ipv4: '192.0.2.77' })).then(() => {
        recorded = true;
      });
      // The loop is free while the commit waits in SQLite's busy handler (on libuv's pool): timers fire, and
      // the other connection's statements go on; the event stays uncommitted.
      for (let i = 0; i < 5; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        await other.run('select 1');
      }
      expect(recorded).toBe(false);
      await other.run('commit');
      await during;
      expect(recorded).toBe(true);
      const v = await store.events.velocityReader('prj_lock').byIp({ ipv4: '192.0.2.77', ipv6: null, since: [], limit: 10 });
      expect({ total: v.total, distinct: v.distinctEmails }).toEqual({ total: 2, distinct: 2 });
    } finally {
      await other.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the write-ahead log of an embedded SQLite file', () => {
  it("starts again under steady commits (SQLite's automatic checkpoints, off the event loop): it does not grow without end", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'email-trust-checkpoint-'));
    const file = join(dir, 'store.sqlite');
    const store = await openDatabase(`sqlite:${file}`);
    // The WAL header's checkpoint sequence number (bytes 12-15, big-endian) goes up each time the log restarts.
    const restarts = async () => {
      const handle = await open(`${file}-wal`, 'r');
      try {
        const header = Buffer.alloc(16);
        await handle.read(header, 0, 16, 0);
        return header.readUInt32BE(12);
      } finally {
        await handle.close();
      }
    };
    try {
      await store.migrate();
      await store.events.record(event({ projectId: 'prj_wal', email: 'first@x.io', ipv4: '192.0.2.1' }));
      const first = await restarts();
      const before = (await stat(file)).size;
      let largest = 0;
      for (let n = 0; n < 100 && (await restarts()) === first; n++) {
        await Promise.all(
          Array.from({ length: 64 }, (_, i) => store.events.record(event({ projectId: 'prj_wal', email: `s${n}.${i}@x.io`, ipv4: `192.0.2.${i}` }))),
        );
        largest = Math.max(largest, (await stat(`${file}-wal`)).size);
      }
      expect(await restarts()).toBeGreaterThan(first);
      // The checkpoint copied the commits into the database file; the log stayed near SQLite's 1,000 pages.
      expect((await stat(file)).size).toBeGreaterThan(before);
      expect(largest).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('values in an embedded SQLite file’s commit', () => {
  it('are stored exactly as given: quotes, U+0000, other scripts, large and negative numbers', async () => {
    const store = await openSqliteTestStore();
    try {
      const odd = ["o'brien@x.io", "'); drop table events; --@x.io", 'nul\u0000byte@x.io', 'ｚ𝔞@x.io'];
      await Promise.all(
        odd.map((email, i) =>
          store.events.record(event({ projectId: 'prj_odd', email, ipv4: '192.0.2.9', riskScore: -i, recordedFacts: { note: email }, createdAt: NOW + i })),
        ),
      );
      const rows = (await store
        .knex('events')
        .where({ project_id: 'prj_odd' })
        .orderBy('created_at')
        .select('email', 'risk_score', 'recorded_facts')) as Array<{
        email: string;
        risk_score: number;
        recorded_facts: string;
      }>;
      expect(rows.map((r) => r.email)).toEqual(odd);
      expect(rows.map((r) => r.risk_score)).toEqual([0, -1, -2, -3]);
      expect(rows.map((r) => JSON.parse(r.recorded_facts).note)).toEqual(odd);
      const v = await store.events.velocityReader('prj_odd').byIp({ ipv4: '192.0.2.9', ipv6: null, since: [], limit: 10 });
      expect([v.total, v.distinctEmails, v.emails.map((e) => e.email).sort()]).toEqual([4, 4, [...odd].sort()]);
    } finally {
      await store.close();
    }
  });
});
