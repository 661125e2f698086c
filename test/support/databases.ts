// Test stores on both engines: a temporary SQLite file and a private schema in the local
// PostgreSQL. Each store comes migrated; its close() also removes the file or drops the schema.
//
//   describe.each(testDatabases)('… on $name', (db) => {
//     let store: Store;
//     beforeAll(async () => { store = await db.open(); });
//     afterAll(() => store.close());
//   });
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { type OpenOptions, openDatabase, type Store } from '../../src/store/database.js';

/** Override with TEST_POSTGRES_URL; a missing server fails the tests rather than skipping them. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated, empty store. */
  open(): Promise<Store>;
}

/** Where each test store lives, so a second connection (another "process") can be opened on it. */
const locations = new WeakMap<Store, { url: string; options: OpenOptions }>();

/** Another Store on the same database as `store`, as a second service instance would have; close it yourself. */
export function openSecondStore(store: Store): Promise<Store> {
  const location = locations.get(store);
  if (!location) throw new Error('openSecondStore takes a store opened by this helper');
  return openDatabase(location.url, location.options);
}

export async function openSqliteTestStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'email-trust-test-'));
  const url = `sqlite:${join(dir, 'store.sqlite')}`;
  const store = await openDatabase(url);
  locations.set(store, { url, options: {} });
  await store.migrate();
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await rm(dir, { recursive: true, force: true });
  };
  return store;
}

export async function openPostgresTestStore(): Promise<Store> {
  const schema = `t_${randomBytes(8).toString('hex')}`;
  const store = await openDatabase(TEST_POSTGRES_URL, { searchPath: schema });
  locations.set(store, { url: TEST_POSTGRES_URL, options: { searchPath: schema } });
  await store.knex.raw('create schema ??', [schema]);
  await store.migrate();
  const close = store.close.bind(store);
  store.close = async () => {
    await store.events.flush();
    await store.knex.raw('drop schema ?? cascade', [schema]);
    await close();
  };
  return store;
}

/**
 * A private schema in the test PostgreSQL and a DATABASE_URL whose connections work in it (the
 * search_path travels as a startup option), for a whole service (test/support/server.ts).
 */
export async function createPostgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(8).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: TEST_POSTGRES_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create schema ??', [schema]);
  } catch (error) {
    await admin.destroy();
    throw error;
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      await admin.raw('drop schema if exists ?? cascade', [schema]);
      await admin.destroy();
    },
  };
}

export const testDatabases: readonly TestDatabase[] = [
  { name: 'sqlite', open: openSqliteTestStore },
  { name: 'postgres', open: openPostgresTestStore },
];
