import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, parseDatabaseUrl, type Store } from '../../src/store/database.js';
import { migrationSource } from '../../src/store/migrations/index.js';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../src/store/sqlite-statements.js';
import { openPostgresTestStore, openSqliteTestStore, testDatabases } from '../support/databases.js';
import { type CapturedLog, captureLog } from '../support/log-capture.js';

describe('parseDatabaseUrl', () => {
  it.each([
    ['sqlite:./data/email-trust.sqlite', { client: 'sqlite', filename: './data/email-trust.sqlite' }],
    ['sqlite:/var/lib/et.sqlite', { client: 'sqlite', filename: '/var/lib/et.sqlite' }],
    ['sqlite::memory:', { client: 'sqlite', filename: ':memory:' }],
    ['  sqlite:x.db ', { client: 'sqlite', filename: 'x.db' }],
    ['postgres://u:p@db:5432/et', { client: 'postgres', url: 'postgres://u:p@db:5432/et' }],
    ['postgresql://db/et', { client: 'postgres', url: 'postgresql://db/et' }],
  ])('accepts %s', (url, target) => {
    expect(parseDatabaseUrl(url)).toEqual(target);
  });

  it.each(['', '   ', 'sqlite:', 'mysql://u:secret@h/db', './data/x.sqlite', 'postgres://[bad'])(
    'refuses %j naming DATABASE_URL and the accepted forms',
    (url) => {
      expect(() => parseDatabaseUrl(url)).toThrow(/DATABASE_URL .*accepted forms: sqlite:<path>.*sqlite::memory:.*postgres:\/\//);
    },
  );

  it('does not echo a password from a refused URL', () => {
    expect(() => parseDatabaseUrl('mysql://u:secret@h/db')).toThrow(/unsupported scheme "mysql:"/);
    expect(() => parseDatabaseUrl('mysql://u:secret@h/db')).not.toThrow(/secret/);
  });
});

describe('SQLite connection setup', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-db-'));
    store = await openDatabase(`sqlite:${join(dir, 'nested', 'deeper', 'et.sqlite')}`);
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the parent folder and the file', async () => {
    expect((await stat(join(dir, 'nested', 'deeper', 'et.sqlite'))).isFile()).toBe(true);
  });

  it('creates the file, its -wal and its -shm readable and writable by the owner only (0600)', async () => {
    await store.projects.create({ name: 'mode', policy: 'default' });
    const file = join(dir, 'nested', 'deeper', 'et.sqlite');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect({ path, mode: (await stat(path)).mode & 0o777 }).toEqual({ path, mode: 0o600 });
  });

  it('sets the pragmas on the connection', async () => {
    const pragma = async (name: string) => Object.values((await store.knex.raw(`PRAGMA ${name}`))[0] as object)[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1); // NORMAL
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(SQLITE_BUSY_TIMEOUT_MS);
  });

  it('enforces foreign keys', async () => {
    await expect(store.keys.create('prj_missing', 'access_token')).rejects.toThrow(/FOREIGN KEY/);
  });

  it('works in memory', async () => {
    const memory = await openDatabase('sqlite::memory:');
    try {
      await memory.migrate();
      const project = await memory.projects.create({ name: 'm', policy: 'default' });
      expect(await memory.projects.get(project.id)).toEqual(project);
    } finally {
      await memory.close();
    }
  });
});

describe.each(testDatabases)('migrations on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('creates every table', async () => {
    for (const table of [
      'projects',
      'api_keys',
      'events',
      'domain_facts',
      'usage',
      'velocity_counts',
      'velocity_addresses',
      'project_list_entries',
      'fingerprint_keys',
    ]) {
      expect(await store.knex.schema.hasTable(table), table).toBe(true);
    }
  });

  it('is idempotent and records the migration by name', async () => {
    await store.migrate();
    const done = (await store.knex('knex_migrations').select('name')) as Array<{ name: string }>;
    expect(done.map((m) => m.name)).toEqual([
      '0001-initial',
      '0002-events-email-lower',
      '0003-events-policy-revision',
      '0004-velocity-counters',
      '0005-project-origins',
      '0006-events-bigint-id',
      '0007-project-lists',
      '0008-project-quota',
      '0009-events-recorded-facts',
      '0010-fingerprint-keys',
      '0011-api-key-labels',
      '0012-events-address-indexes-partial',
      '0013-events-fingerprint-token',
      '0014-events-decisions',
      '0015-labels',
    ]);
  });

  it('rolls back cleanly', async () => {
    await store.knex.migrate.rollback({ migrationSource: (await import('../../src/store/migrations/index.js')).migrationSource }, true);
    expect(await store.knex.schema.hasTable('events')).toBe(false);
    await store.migrate();
    expect(await store.knex.schema.hasTable('events')).toBe(true);
  });
});

describe.each(testDatabases)('migration 0002 (events.email_lower) on $name', (db) => {
  let store: Store;
  const NOW = 1_800_000_000_000;
  const oldRow = (email: string, createdAt: number) => ({
    project_id: 'prj_old',
    endpoint: 'verify',
    email,
    base_email: email.toLowerCase(), // what the service wrote before 0002
    ipv4: '192.0.2.1',
    action: 'allow',
    created_at: createdAt,
  });

  beforeAll(async () => {
    store = await db.open();
    await store.knex.migrate.down({ migrationSource, name: '0002-events-email-lower' });
    expect(await store.knex.schema.hasColumn('events', 'email_lower')).toBe(false);
    await store.knex('events').insert([oldRow('ÄRGER+1@X.com', NOW - 2), oldRow('ärger+1@x.com', NOW - 1), oldRow('b@x.com', NOW)]);
    await store.migrate();
  });
  afterAll(() => store.close());

  it('backfills old rows with the address lower-cased in Unicode (from base_email, not SQL lower())', async () => {
    const rows = (await store.knex('events').where({ project_id: 'prj_old' }).orderBy('created_at').select('email', 'email_lower')) as unknown[];
    expect(rows).toEqual([
      { email: 'ÄRGER+1@X.com', email_lower: 'ärger+1@x.com' },
      { email: 'ärger+1@x.com', email_lower: 'ärger+1@x.com' },
      { email: 'b@x.com', email_lower: 'b@x.com' },
    ]);
  });

  it('per-IP velocity reads old rows (backfilled by 0004), and a row written without email_lower counts by base_email', async () => {
    await store.knex.migrate.down({ migrationSource, name: '0004-velocity-counters' });
    await store.knex('events').insert({ ...oldRow('C@x.com', NOW + 1) }); // an instance still on the old code
    await store.migrate();
    const v = await store.events.velocityReader('prj_old').byIp({ ipv4: '192.0.2.1', ipv6: null, since: [], limit: 10 });
    expect(v).toEqual({
      emails: [
        { email: 'c@x.com', at: NOW + 1 },
        { email: 'b@x.com', at: NOW },
        { email: 'ärger+1@x.com', at: NOW - 1 },
      ],
      distinctEmails: 3,
      total: 4,
      since: [],
    });
  });

  it('rolls back to the first schema and forward again', async () => {
    await store.knex.migrate.down({ migrationSource, name: '0002-events-email-lower' });
    expect(await store.knex.schema.hasColumn('events', 'email_lower')).toBe(false);
    const [{ n }] = (await store.knex('events').where({ project_id: 'prj_old' }).count({ n: '*' })) as [{ n: unknown }];
    expect(Number(n)).toBe(4);
    await store.migrate();
    expect(await store.knex.schema.hasColumn('events', 'email_lower')).toBe(true);
  });
});

describe.each(testDatabases)('migration 0012 (partial IP indexes on events) on $name', (db) => {
  let store: Store;
  const NOW = 1_800_000_000_000;
  const INDEXES = { ipv4: 'events_project_id_ipv4_created_at_index', ipv6: 'events_project_id_ipv6_created_at_index' } as const;
  const row = (email: string, ip: { ipv4?: string; ipv6?: string }, createdAt: number) => ({
    project_id: 'prj_partial',
    endpoint: 'verify',
    email,
    email_lower: email,
    base_email: email,
    ipv4: ip.ipv4 ?? null,
    ipv6: ip.ipv6 ?? null,
    action: 'allow',
    created_at: createdAt,
  });
  /** The index's definition as the database keeps it, lower-cased, without quotes or parentheses. */
  const definition = async (name: string): Promise<string> => {
    const text =
      db.name === 'sqlite'
        ? ((await store.knex('sqlite_master').where({ type: 'index', name }).first('sql')) as { sql: string }).sql
        : (
            (await store.knex.raw('select indexdef from pg_indexes where indexname = ? and schemaname = current_schema()', [name])).rows[0] as {
              indexdef: string;
            }
          ).indexdef;
    return text.toLowerCase().replace(/[`"()]/g, '');
  };
  /** Entries in a SQLite index: the cells of its leaf pages (dbstat). */
  const entries = async (name: string): Promise<number> => {
    const [{ n }] = (await store.knex.raw(`select sum(ncell) as n from dbstat where name = ? and pagetype = 'leaf'`, [name])) as [{ n: number }];
    return Number(n);
  };

  beforeAll(async () => {
    store = await db.open();
    await store.knex.migrate.down({ migrationSource, name: '0012-events-address-indexes-partial' });
    expect(await definition(INDEXES.ipv6)).not.toContain('where');
    await store.knex('events').insert([
      row('v4@x.io', { ipv4: '192.0.2.12' }, NOW - 2),
      row('v6@x.io', { ipv6: '2001:db8::12' }, NOW - 1),
      row('none@x.io', {}, NOW), // an intelligence call without a fingerprint
    ]);
    await store.migrate();
  });
  afterAll(() => store.close());

  it('keeps in each IP index only the events with that address, and the history of an IP still reads through it', async () => {
    expect(await definition(INDEXES.ipv4)).toMatch(/where ipv4 is not null$/);
    expect(await definition(INDEXES.ipv6)).toMatch(/where ipv6 is not null$/);
    if (db.name === 'sqlite') {
      expect(await entries(INDEXES.ipv4)).toBe(1);
      expect(await entries(INDEXES.ipv6)).toBe(1);
      const plan = (await store.knex.raw(
        'explain query plan select id, ipv4, ipv6, created_at from events where project_id = ? and ipv6 = ? order by created_at desc limit 5',
        ['prj_partial', '2001:db8::12'],
      )) as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join(' ')).toContain(`USING INDEX ${INDEXES.ipv6}`);
    }
    const v4 = await store.events.byIpHistory('prj_partial', { ipv4: '192.0.2.12', ipv6: null }, 10);
    expect(v4.items.map((i) => [i.ipv4, i.ipv6, i.at])).toEqual([['192.0.2.12', null, NOW - 2]]);
    const v6 = await store.events.byIpHistory('prj_partial', { ipv4: null, ipv6: '2001:db8::12' }, 10);
    expect(v6.items.map((i) => [i.ipv4, i.ipv6, i.at])).toEqual([[null, '2001:db8::12', NOW - 1]]);
  });

  it('rolls back to whole indexes and forward again', async () => {
    await store.knex.migrate.down({ migrationSource, name: '0012-events-address-indexes-partial' });
    expect(await definition(INDEXES.ipv4)).not.toContain('where');
    if (db.name === 'sqlite') expect(await entries(INDEXES.ipv6)).toBe(3);
    await store.migrate();
    expect(await definition(INDEXES.ipv6)).toMatch(/where ipv6 is not null$/);
  });
});

describe.each(testDatabases)('migration 0004 (velocity counters) on $name', (db) => {
  let store: Store;
  const NOW = 1_800_000_000_000;
  const counters = async () => ({
    counts: (await store.knex('velocity_counts').orderBy(['project_id', 'kind', 'subject', 'bucket'])).map((r) => ({
      ...r,
      bucket: Number(r.bucket),
      validations: Number(r.validations),
      addresses: Number(r.addresses),
    })),
    addresses: (await store.knex('velocity_addresses').orderBy(['project_id', 'kind', 'subject', 'address'])).map((r) => ({
      ...r,
      last_seen: Number(r.last_seen),
    })),
  });

  beforeAll(async () => {
    store = await db.open();
    const at = [0, 1, 59_999, 60_000, 3_600_000, 86_400_000];
    await Promise.all(
      at.flatMap((ago, i) => [
        store.events.record({
          projectId: i % 2 ? 'prj_x' : 'prj_y',
          endpoint: 'verify',
          email: `U${i % 3}+t@x.io`,
          emailLower: `u${i % 3}+t@x.io`,
          baseEmail: `u${i % 3}@x.io`,
          ipv4: '192.0.2.1',
          ipv6: i % 2 ? '2001:db8::1' : null,
          device: i < 3 ? 'dev_a' : null,
          action: 'allow',
          createdAt: NOW - ago,
        }),
      ]),
    );
  });
  afterAll(() => store.close());

  it("backfills from stored events, with 0013 (a device's IPs and networks), exactly the counters the write path maintains", async () => {
    const written = await counters();
    expect(written.counts.length).toBeGreaterThan(10);
    expect(written.addresses.length).toBeGreaterThan(5);
    expect(new Set(written.addresses.filter((a) => a.kind === 'device_network').map((a) => a.address))).toEqual(new Set(['192.0.2.0/24', '2001:db8::/64']));
    await store.knex.migrate.down({ migrationSource, name: '0013-events-fingerprint-token' });
    await store.knex.migrate.down({ migrationSource, name: '0004-velocity-counters' });
    expect(await store.knex.schema.hasTable('velocity_counts')).toBe(false);
    await store.migrate();
    expect(await counters()).toEqual(written);
  });
});

describe.each(testDatabases)('migration 0014 (decisions) on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('goes down to the columns and tables before it, keeping the events, and up again', async () => {
    await store
      .knex('events')
      .insert({ project_id: 'prj_m', endpoint: 'verify', email: 'a@x.io', base_email: 'a@x.io', action: 'allow', created_at: 1, decision_id: 'x' });
    await store.knex.migrate.down({ migrationSource, name: '0014-events-decisions' });
    expect(await store.knex.schema.hasTable('policy_revisions')).toBe(false);
    for (const column of ['decision_id', 'request_id', 'policy_name', 'errors', 'warnings', 'parent_rule'])
      expect(await store.knex.schema.hasColumn('events', column), column).toBe(false);
    expect(await store.knex('events').select('email')).toEqual([{ email: 'a@x.io' }]);
    await store.migrate();
    expect(await store.knex.schema.hasTable('policy_revisions')).toBe(true);
    expect(await store.knex('events').select('email', 'decision_id')).toEqual([{ email: 'a@x.io', decision_id: null }]);
  });
});

describe('migration 0006 (64-bit events.id) on postgres', () => {
  let store: Store;
  const event = (email: string) => ({ projectId: 'prj_ids', endpoint: 'verify', email, emailLower: email, baseEmail: email, action: 'allow' });
  const idType = async () =>
    (
      (await store
        .knex('information_schema.columns')
        .where({ table_schema: store.knex.raw('current_schema()'), table_name: 'events', column_name: 'id' })
        .first('data_type')) as { data_type: string }
    ).data_type;
  const pastInt32 = () => store.knex.raw("select setval('events_id_seq', 2147483647)");

  beforeAll(async () => {
    store = await openPostgresTestStore();
  });
  afterAll(() => store.close());

  it('before it, an event id past 2^31 - 1 is refused', async () => {
    await store.knex.migrate.down({ migrationSource, name: '0006-events-bigint-id' });
    expect(await idType()).toBe('integer');
    await pastInt32();
    await expect(store.events.record(event('before@example.com'))).rejects.toThrow(/out of range|reached maximum value/);
  });

  it('makes events.id and its sequence bigint, and the next id past 2^31 - 1 is stored', async () => {
    await store.migrate();
    expect(await idType()).toBe('bigint');
    const [{ data_type }] = (await store
      .knex('information_schema.sequences')
      .where({ sequence_schema: store.knex.raw('current_schema()'), sequence_name: 'events_id_seq' })
      .select('data_type')) as [{ data_type: string }];
    expect(data_type).toBe('bigint');
    await pastInt32();
    await store.events.record(event('after@example.com'));
    const row = (await store.knex('events').where({ email: 'after@example.com' }).first('id')) as { id: unknown };
    expect(BigInt(String(row.id))).toBe(2_147_483_648n);
  });
});

describe('migration 0006 on sqlite', () => {
  it('leaves the rowid id as it is: already 64-bit', async () => {
    const store = await openSqliteTestStore();
    try {
      await store
        .knex('events')
        .insert({ id: 2 ** 40, project_id: 'prj_ids', endpoint: 'verify', email: 'a@x.com', base_email: 'a@x.com', action: 'allow', created_at: 1 });
      await store.events.record({ projectId: 'prj_ids', endpoint: 'verify', email: 'b@x.com', emailLower: 'b@x.com', baseEmail: 'b@x.com', action: 'allow' });
      const row = (await store.knex('events').where({ email: 'b@x.com' }).first('id')) as { id: number };
      expect(row.id).toBe(2 ** 40 + 1);
    } finally {
      await store.close();
    }
  });
});

describe("knex's own warnings", () => {
  /** A local port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  /** Three queries to a PostgreSQL that refuses connections, console.log watched: what knex printed there. */
  async function refusedQueries(log?: CapturedLog): Promise<unknown[][]> {
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const store = await openDatabase(`postgres://postgres@127.0.0.1:${await closedPort()}/test`, log ? { log: log.log } : {});
    try {
      for (let i = 0; i < 3; i += 1) await expect(store.knex.raw('select 1')).rejects.toThrow(/ECONNREFUSED/);
      return printed.mock.calls;
    } finally {
      printed.mockRestore();
      await store.close();
    }
  }

  it('go to the logger given, one line of a kind a second, its first line only', async () => {
    const log = captureLog('warn');
    expect(await refusedQueries(log)).toEqual([]);
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'database driver: Acquire connection error',
        reason: expect.stringMatching(/^Acquire connection error: Error: connect ECONNREFUSED [^\n]*$/),
      }),
    ]);
  });

  it('are dropped without a logger (a CLI command: the query fails with the error itself)', async () => {
    expect(await refusedQueries()).toEqual([]);
  });
});
