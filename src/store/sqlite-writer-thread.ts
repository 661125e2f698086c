// The writer thread of an embedded SQLite file (sqlite-writer.ts starts it): its own better-sqlite3 connection
// runs the event commits and the writes beside them, so that their page writes, their waits for a lock held
// elsewhere and SQLite's checkpoints never hold the event loop (docs/decisions/0078). Everything else (reads,
// migrations, projects, keys, retention) stays on knex's connections on the event loop.
//
// In: { id, op: 'commit', rows, observe } or { id, op: 'write', statements }, answered in order with
// { id, ok, ... }; every VERSION_POLL_MS, { op: 'version', version }: the connection's PRAGMA data_version,
// which changes when another connection commits (velocity-cache.ts).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { type CommitStatements, commitStatements, type EventRow } from './commit-statements.js';
import { COMMIT_LOCK_WAIT_MS, prepare, sqlitePragmas, WRITER_CACHE_MB } from './sqlite-statements.js';
import { VERSION_POLL_MS } from './velocity-cache.js';
import type { Statement } from './velocity-counters.js';

export type WriterRequest =
  | { id: number; op: 'commit'; rows: EventRow[]; observe: boolean }
  | { id: number; op: 'write'; statements: Statement[] }
  | { id: number; op: 'close' };

export interface ThreadError {
  name: string;
  message: string;
  code?: string;
}

export type WriterReply =
  | { op: 'version'; version: number }
  | {
      id: number;
      ok: true;
      /** A commit's increments (velocity-counters.ts: counterWrites().increments()), the distinct counts included. */
      increments?: ReturnType<CommitStatements['counters']['increments']>;
      /** A commit's statements, when asked to observe them (knex's `query` event on the event loop). */
      statements?: Statement[];
      /** A write's rows, per statement. */
      rows?: Array<Array<Record<string, unknown>>>;
    }
  | { id: number; ok: false; error: ThreadError };

type Rows = Array<Record<string, unknown>>;

const port = parentPort;
if (!port) throw new Error('sqlite-writer-thread.ts runs as a worker thread (sqlite-writer.ts)');
const { filename } = workerData as { filename: string };

// A lock held elsewhere is waited for here, in SQLite's busy handler: only this thread waits.
const db = new Database(filename, { timeout: COMMIT_LOCK_WAIT_MS });
db.exec(sqlitePragmas(COMMIT_LOCK_WAIT_MS, WRITER_CACHE_MB));

const run = (statement: Statement): Rows => {
  const prepared = prepare(db, statement.sql);
  if (prepared.reader) return prepared.all(statement.bindings) as Rows;
  prepared.run(statement.bindings);
  return [];
};

// The event rows, their velocity counters and usage counts, or nothing: the new address rows come back from
// their insert, so the distinct counts are exact (velocity-counters.ts).
const commit = db.transaction((writes: CommitStatements) => {
  for (const statement of writes.events) run(statement);
  const inserted = writes.counters.first.map(run);
  const rest = [...writes.counters.rest(inserted), ...writes.usage];
  for (const statement of rest) run(statement);
  return rest;
}).immediate;

const write = db.transaction((statements: Statement[]) => statements.map(run)).immediate;

const errorOf = (error: unknown): ThreadError => {
  const { name, message, code } = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
  };
};

const post = (reply: WriterReply) => port.postMessage(reply);

const poll = setInterval(() => {
  try {
    post({ op: 'version', version: Number(db.pragma('data_version', { simple: true })) });
  } catch {
    // The file gone or unreadable: no reading, so the velocity cache stops answering (VERSION_FRESH_MS).
  }
}, VERSION_POLL_MS);

port.on('message', (request: WriterRequest) => {
  if (request.op === 'close') {
    clearInterval(poll);
    db.close();
    post({ id: request.id, ok: true });
    port.close();
    return;
  }
  try {
    if (request.op === 'commit') {
      const writes = commitStatements(request.rows);
      const rest = commit(writes);
      const statements = request.observe ? [...writes.events, ...writes.counters.first, ...rest] : undefined;
      post({ id: request.id, ok: true, increments: writes.counters.increments(), ...(statements ? { statements } : {}) });
    } else post({ id: request.id, ok: true, rows: write(request.statements) });
  } catch (error) {
    post({ id: request.id, ok: false, error: errorOf(error) });
  }
});
