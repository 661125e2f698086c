// Opens the store named by DATABASE_URL: SQLite (embedded, one file) or PostgreSQL (several
// service instances). One knex migration set serves both.
import cluster from 'node:cluster';
import { constants } from 'node:fs';
import { access, mkdir, open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Logger } from 'pino';
import { throttled } from '../log-throttle.js';
import { backgroundWrites } from './background-writes.js';
import { createDomainFacts, type DomainFacts } from './domain-facts.js';
import { createEvents, type Events, knexReads, READ_TIMEOUT_MS } from './events.js';
import { createFingerprintKeys, type FingerprintKeys } from './fingerprint-keys.js';
import { createKeys, type Keys } from './keys.js';
import { createLabels, type Labels } from './labels.js';
import { migrationSource } from './migrations/index.js';
import { createPolicyRevisions, type PolicyRevisions } from './policy-revisions.js';
import { createProjectLists, type ProjectLists } from './project-lists.js';
import { createProjects, type Projects } from './projects.js';
import { SQLITE_BUSY_TIMEOUT_MS, sqlitePragmas } from './sqlite-statements.js';
import { openSqliteWriter } from './sqlite-writer.js';
import { createUsage, type Usage } from './usage.js';
import { createVelocityCache } from './velocity-cache.js';

export interface Store {
  knex: Knex;
  projects: Projects;
  /** Each project's own domain lists (`email-trust project lists`). */
  projectLists: ProjectLists;
  keys: Keys;
  /** The fingerprint sealing key made when FINGERPRINT_KEYS is not set, shared by every instance. */
  fingerprintKeys: FingerprintKeys;
  events: Events;
  domainFacts: DomainFacts;
  usage: Usage;
  /** The text of every policy revision that decided a stored event. */
  policyRevisions: PolicyRevisions;
  /** Feedback on decisions and the reputation counters written with it. */
  labels: Labels;
  /** Brings the schema up to date. */
  migrate(): Promise<void>;
  /** Waits for pending event commits, then closes every connection. */
  close(): Promise<void>;
}

export type DatabaseTarget = { client: 'sqlite'; filename: string } | { client: 'postgres'; url: string };

export interface OpenOptions {
  /** PostgreSQL schema to work in (tests use one schema per file); ignored for SQLite. */
  searchPath?: string;
  /** How long a query may wait for a pooled connection, connecting included (default ACQUIRE_TIMEOUT_MS, 5 s). */
  acquireTimeoutMs?: number;
  /** How long a velocity read may wait for the database (default READ_TIMEOUT_MS, 2 s). */
  readTimeoutMs?: number;
  /** Where knex's own warnings go, throttled (knexLog); without it they are dropped. */
  log?: Logger;
}

const SQLITE_MEMORY = ':memory:';
const ACCEPTED_FORMS =
  'sqlite:<path> (e.g. sqlite:./data/email-trust.sqlite), sqlite::memory:, or postgres://user:password@host:5432/database (postgresql:// also accepted)';

// better-sqlite3 runs knex's statements on the event loop, so a lock held elsewhere is waited for briefly
// (SQLITE_BUSY_TIMEOUT_MS, then 503); the event commits and the writes beside them wait in the writer thread.
const SQLITE_PRAGMAS = sqlitePragmas(SQLITE_BUSY_TIMEOUT_MS);

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

// knex writes a failed statement in front of its error's message: with its placeholders, not the values
// bound to them (addresses, IPs), which would reach logs.
const NO_VALUES_IN_ERRORS = { compileSqlOnError: false } as const;

/** Why a file system call failed, in words an operator can act on. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  ENOENT: 'nothing can be created there',
  ENOSPC: 'the disk is full',
};

/**
 * Makes sure the SQLite file (and its folder, where SQLite also writes its -wal and -shm files) can be
 * created and written, before anything is opened: a path that cannot be stops the start with a message
 * naming it, rather than a bare SQLITE_CANTOPEN later. The file is created readable by its owner only.
 */
async function prepareSqliteFile(filename: string): Promise<void> {
  const file = resolve(filename);
  const folder = dirname(file);
  const refuse = (error: unknown, what: string): Error => {
    const code = String((error as { code?: unknown }).code ?? 'error');
    return new Error(
      `DATABASE_URL: cannot ${what} (${FILE_PROBLEMS[code] ?? code}, ${code}); point DATABASE_URL at a file in a folder this user can write (e.g. sqlite:./data/email-trust.sqlite), or fix that path's permissions`,
    );
  };
  await makeFolder(folder).catch((error: unknown) => {
    throw refuse(error, `create the folder ${folder} for the SQLite file`);
  });
  try {
    await (await open(file, 'a', 0o600)).close();
    await access(folder, constants.W_OK);
  } catch (error) {
    throw refuse(error, `write the SQLite file ${file}`);
  }
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir never settles for some paths (a folder under
 * /proc/<name> that does not exist), where this one fails at the first level that cannot be made.
 */
async function makeFolder(folder: string): Promise<void> {
  const missing: string[] = [];
  let at = folder;
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );
  while (!(await exists(at))) {
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    await mkdir(level).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    });
  }
  if (!(await stat(folder)).isDirectory()) throw Object.assign(new Error(`${folder} is not a folder`), { code: 'ENOTDIR' });
}

/**
 * Connections of an embedded file's read pool (the velocity and history reads of requests): a WAL reader
 * beside the writer, so a read never waits for a knex transaction holding the writer connection. One is
 * enough: better-sqlite3 runs each read to its end in one call.
 */
export const SQLITE_READ_CONNECTIONS = 1;

/** knex over better-sqlite3 on `filename`, with `connections` pooled (the file is prepared by the caller). */
function sqliteConfig(filename: string, options: OpenOptions, connections: number): Knex.Config {
  return {
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    ...NO_VALUES_IN_ERRORS,
    acquireConnectionTimeout: options.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS,
    pool: {
      min: 1,
      max: connections,
      afterCreate: (conn: { exec(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
        try {
          conn.exec(SQLITE_PRAGMAS);
          done(null, conn);
        } catch (error) {
          done(error as Error, conn);
        }
      },
    },
  };
}

/**
 * How long a query waits for a pooled connection (knex's default is 60 s): past it the request fails
 * (503, store/unavailable.ts) instead of hanging while the database is down or every connection busy.
 */
export const ACQUIRE_TIMEOUT_MS = 5_000;

function postgresConfig(url: string, options: OpenOptions): Knex.Config {
  return {
    client: 'pg',
    // A server that accepts no connection (packets dropped) is given up on as quickly.
    connection: { connectionString: url, connectionTimeoutMillis: options.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS },
    acquireConnectionTimeout: options.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS,
    ...NO_VALUES_IN_ERRORS,
    pool: { min: 0, max: 10 },
    ...(options.searchPath ? { searchPath: [options.searchPath] } : {}),
  };
}

/** The longest part of a knex message that a log line keeps. */
const MAX_KNEX_REASON = 200;

/**
 * knex's own lines (its `log` option): through the logger, throttled per kind, the first line only. Left to
 * itself knex prints them with console.log, on stdout whatever LOG_LEVEL says, a stack trace each: in an
 * outage under load, every connection attempt ("Acquire connection error: Error: connect ECONNREFUSED …")
 * and every dropped connection ("Connection Error: …"). Without a logger (a CLI command) they are dropped:
 * each failure also reaches its caller as the query's error.
 */
function knexLog(log: Logger | undefined): NonNullable<Knex.Config['log']> {
  const line = (level: 'warn' | 'error') => (message: unknown) => {
    if (!log) return;
    const text = (String(message).split('\n')[0] ?? '').slice(0, MAX_KNEX_REASON);
    const kind = text.split(': ')[0] ?? text;
    throttled(log).write(level, `knex: ${kind}`, { reason: text }, `database driver: ${kind}`);
  };
  // knex's debug lines are statements (knex's `debug` option, never set here): dropped, as they may quote values.
  return { warn: line('warn'), error: line('error'), deprecate: line('warn'), debug: () => undefined };
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(url);
  if (target.client === 'sqlite' && target.filename !== SQLITE_MEMORY) await prepareSqliteFile(target.filename);
  const log = knexLog(options.log);
  // SQLite: one connection writes (one writer at a time; a memory database is one connection's), and an
  // embedded file's request-path reads have a pool of their own.
  const knex = knexFactory({ ...(target.client === 'sqlite' ? sqliteConfig(target.filename, options, 1) : postgresConfig(target.url, options)), log });
  const readKnex =
    target.client === 'sqlite' && target.filename !== SQLITE_MEMORY
      ? knexFactory({ ...sqliteConfig(target.filename, options, SQLITE_READ_CONNECTIONS), log })
      : knex;
  // An embedded file's event commits and the writes beside them run in a thread of their own (sqlite-writer.ts).
  const thread = target.client === 'sqlite' && target.filename !== SQLITE_MEMORY ? openSqliteWriter(target.filename) : null;
  const write = backgroundWrites(knex, thread);
  const keys = createKeys(knex, write);
  // Every read on the request's path is bounded (READ_TIMEOUT_MS); PostgreSQL also cancels one past it.
  const bound = { timeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS, cancel: target.client === 'postgres' };
  // An embedded file's velocity reads come from memory once read (velocity-cache.ts): off in a process of
  // WORKERS, whose siblings commit to the same file all the time.
  const cache = thread && !cluster.isWorker ? createVelocityCache(thread.version) : null;
  const reads = knexReads(readKnex, bound, cache, readKnex !== knex);
  const events = createEvents(knex, reads, thread);
  return {
    knex,
    projects: createProjects(knex, () => keys.clearCache()),
    projectLists: createProjectLists(knex, () => keys.clearCache()),
    keys,
    fingerprintKeys: createFingerprintKeys(knex),
    events,
    domainFacts: createDomainFacts(knex, write),
    usage: createUsage(knex),
    policyRevisions: createPolicyRevisions(knex, write),
    labels: createLabels(knex, reads, write),
    async migrate() {
      await knex.migrate.latest({ migrationSource });
    },
    async close() {
      await events.flush();
      await thread?.close();
      await reads.release();
      if (readKnex !== knex) await readKnex.destroy();
      await knex.destroy();
    },
  };
}
