// Opens the store named by DATABASE_URL: SQLite (embedded, one file) or PostgreSQL (several
// service instances). One knex migration set serves both.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { createDomainFacts, type DomainFacts } from './domain-facts.js';
import { createEvents, type Events, knexReads, READ_TIMEOUT_MS } from './events.js';
import { createKeys, type Keys } from './keys.js';
import { migrationSource } from './migrations/index.js';
import { createProjects, type Projects } from './projects.js';
import { openSqliteReads } from './sqlite-reads.js';
import { createUsage, type Usage } from './usage.js';

export interface Store {
  knex: Knex;
  projects: Projects;
  keys: Keys;
  events: Events;
  domainFacts: DomainFacts;
  usage: Usage;
  /** Brings the schema up to date. */
  migrate(): Promise<void>;
  /** Waits for pending event commits, then closes every connection. */
  close(): Promise<void>;
}

export type DatabaseTarget = { client: 'sqlite'; filename: string } | { client: 'postgres'; url: string };

export interface OpenOptions {
  /** PostgreSQL schema to work in (tests use one schema per file); ignored for SQLite. */
  searchPath?: string;
  /** How long a velocity read may wait for the database (default READ_TIMEOUT_MS, 2 s). */
  readTimeoutMs?: number;
}

const SQLITE_MEMORY = ':memory:';
const ACCEPTED_FORMS =
  'sqlite:<path> (e.g. sqlite:./data/email-trust.sqlite), sqlite::memory:, or postgres://user:password@host:5432/database (postgresql:// also accepted)';

// WAL lets readers run beside the writer; NORMAL syncs at checkpoints, not at every commit (a commit
// survives a process crash; the last ones may be lost on power loss). A 32 MB page cache (default 2 MB)
// keeps the event and counter indexes in memory while history grows: writes stay fast at millions of rows.
const SQLITE_PRAGMAS = 'PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA cache_size=-32768;';

function badUrl(detail: string): Error {
  return new Error(`DATABASE_URL ${detail}; accepted forms: ${ACCEPTED_FORMS}`);
}

/** Reads a DATABASE_URL; throws an Error naming DATABASE_URL and the accepted forms when it is not one. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const value = typeof url === 'string' ? url.trim() : '';
  if (value === '') throw badUrl('is empty');
  if (value.startsWith('sqlite:')) {
    const filename = value.slice('sqlite:'.length);
    if (filename === '') throw badUrl('names no SQLite file');
    return { client: 'sqlite', filename };
  }
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    try {
      new URL(value);
    } catch {
      throw badUrl('is not a valid postgres:// URL');
    }
    return { client: 'postgres', url: value };
  }
  // Name only the scheme: the rest may hold a password.
  const scheme = /^[a-z][a-z0-9+.-]{0,20}:/i.exec(value)?.[0];
  throw badUrl(scheme ? `has an unsupported scheme "${scheme}"` : 'is not a URL');
}

async function sqliteConfig(filename: string): Promise<Knex.Config> {
  if (filename !== SQLITE_MEMORY) {
    await mkdir(dirname(resolve(filename)), { recursive: true });
    // Created here, readable by its owner only; SQLite gives its -wal and -shm files the same mode.
    await writeFile(filename, '', { flag: 'a', mode: 0o600 });
  }
  return {
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) => {
        conn.exec(SQLITE_PRAGMAS, (err) => done(err, conn));
      },
    },
  };
}

function postgresConfig(url: string, options: OpenOptions): Knex.Config {
  return {
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 10 },
    ...(options.searchPath ? { searchPath: [options.searchPath] } : {}),
  };
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(url);
  const config = target.client === 'sqlite' ? await sqliteConfig(target.filename) : postgresConfig(target.url, options);
  const knex = knexFactory(config);
  const keys = createKeys(knex);
  // An embedded file gets its own read connection for the hot path; memory databases cannot share one.
  const fastReads = target.client === 'sqlite' && target.filename !== SQLITE_MEMORY ? openSqliteReads(target.filename) : null;
  // The embedded file's reads run synchronously and never wait; through knex every read is bounded.
  const bound = { timeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS, cancel: target.client === 'postgres' };
  const events = createEvents(knex, fastReads ?? knexReads(knex, bound));
  return {
    knex,
    projects: createProjects(knex, () => keys.clearCache()),
    keys,
    events,
    domainFacts: createDomainFacts(knex),
    usage: createUsage(knex),
    async migrate() {
      await knex.migrate.latest({ migrationSource });
    },
    async close() {
      await events.flush();
      await fastReads?.close();
      await knex.destroy();
    },
  };
}
