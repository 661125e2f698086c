// Which errors mean "the database cannot be reached right now" (answered 503, retried by the caller)
// and which are bugs or bad data (500): real errors from real databases where they can be provoked here.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Store } from '../../src/store/database.js';
import { isUnavailable, outageReason } from '../../src/store/unavailable.js';
import { testDatabases } from '../support/databases.js';
import { failureOf, sqliteConnection } from './sqlite-connection.js';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('isUnavailable', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-unavailable-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('PostgreSQL refusing connections (ECONNREFUSED) is an outage', async () => {
    const store = await openDatabase(`postgres://postgres@127.0.0.1:${await closedPort()}/test`);
    try {
      const error = await failureOf(() => store.knex.raw('select 1'));
      expect(isUnavailable(error)).toBe(true);
      expect(outageReason(error)).toMatch(/ECONNREFUSED/);
    } finally {
      await store.close();
    }
  });

  it('a server that accepts connections and never answers (a black hole) is an outage after acquireTimeoutMs, not a hang', async () => {
    const hole = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => hole.once('listening', resolve));
    const store = await openDatabase(`postgres://postgres@127.0.0.1:${(hole.address() as { port: number }).port}/test`, { acquireTimeoutMs: 300 });
    try {
      const error = await failureOf(() => store.knex.raw('select 1'));
      expect(isUnavailable(error)).toBe(true);
    } finally {
      await store.close();
      hole.close();
    }
  });

  it('a pool that gives no connection within acquireConnectionTimeout is an outage', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'pool.sqlite') },
      useNullAsDefault: true,
      pool: { min: 1, max: 1 },
      acquireConnectionTimeout: 100,
    });
    try {
      const trx = await knex.transaction();
      const error = await failureOf(() => knex.raw('select 1'));
      await trx.rollback();
      expect((error as Error).name).toBe('KnexTimeoutError');
      expect(isUnavailable(error)).toBe(true);
    } finally {
      await knex.destroy();
    }
  });

  it('a SQLite file locked by another writer (SQLITE_BUSY) or that cannot be opened (SQLITE_CANTOPEN) is an outage', async () => {
    const file = join(dir, 'busy.sqlite');
    const holder = await sqliteConnection(file);
    const other = await sqliteConnection(file); // busy_timeout 0
    try {
      await holder.run('create table t (x)');
      await holder.run('begin exclusive');
      await holder.run('insert into t values (1)');
      const busy = await failureOf(() => other.run('insert into t values (2)'));
      expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isUnavailable(busy)).toBe(true);
      await holder.run('rollback');
    } finally {
      await holder.close();
      await other.close();
    }
    const cantOpen = await failureOf(() => sqliteConnection(dir)); // a folder, not a file
    expect(isUnavailable(cantOpen)).toBe(true);
  });

  it.each([
    ['admin_shutdown (57P01)', { code: '57P01' }],
    ['cannot_connect_now (57P03)', { code: '57P03' }],
    ['connection_failure (08006)', { code: '08006' }],
    ['too_many_connections (53300)', { code: '53300' }],
    ['a reset connection', { code: 'ECONNRESET' }],
    ['a dropped connection, SQL first', new Error('select 1 - Connection terminated unexpectedly')],
    ['an outage as the cause', new Error('wrapped', { cause: { code: 'ETIMEDOUT' } })],
    ['an outage among several', new AggregateError([new Error('x'), Object.assign(new Error('y'), { code: 'ECONNREFUSED' })])],
  ])('the shape pg and Node give to %s is an outage', (_label, error) => {
    expect(isUnavailable(error)).toBe(true);
  });

  it.each([null, undefined, 'ECONNREFUSED', new Error('boom'), new TypeError('x is undefined'), { code: '23505' }, { code: 'SQLITE_CONSTRAINT' }])(
    '%j is not an outage',
    (error) => {
      expect(isUnavailable(error)).toBe(false);
    },
  );
});

describe.each(testDatabases)('errors that are not outages on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('a syntax error, a missing table and a duplicate key are bugs, not outages', async () => {
    expect(isUnavailable(await failureOf(() => store.knex.raw('selec 1')))).toBe(false);
    expect(isUnavailable(await failureOf(() => store.knex('no_such_table').select('*')))).toBe(false);
    const project = await store.projects.create({ name: 'dup', policy: 'default' });
    const row = await store.knex('projects').where({ id: project.id }).first();
    expect(isUnavailable(await failureOf(() => store.knex('projects').insert({ ...row, name: 'dup2' })))).toBe(false);
  });
});
