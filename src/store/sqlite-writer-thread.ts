// The writer thread of an embedded SQLite file (sqlite-writer.ts starts it): its own better-sqlite3 connection
// runs the event commits and the writes beside them, so that their page writes, their waits for a lock held
// elsewhere and SQLite's checkpoints never hold the event loop (docs/decisions/0078). Everything else (reads,
// migrations, projects, keys, retention) stays on knex's connections on the event loop.
//
// In: { id, op: 'commit', rows, observe } or { id, op: 'write', statements }, answered in order with
// { id, ok, ... }; every VERSION_POLL_MS, { op: 'version', version }: the connection's PRAGMA data_version,
// which changes when another connection commits (velocity-cache.ts). Commits that queued while the thread
// was busy run as one transaction (up to MAX_ROWS_PER_COMMIT rows), so a commit's fixed cost is shared; if
// it fails, each runs alone, so that no caller fails for another's rows.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { type CommitStatements, commitStatements, type EventRow, MAX_ROWS_PER_COMMIT } from './commit-statements.js';
import { COMMIT_LOCK_WAIT_MS, prepare, sqlitePragmas } from './sqlite-statements.js';
import { isUnavailable } from './unavailable.js';
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
db.exec(sqlitePragmas(COMMIT_LOCK_WAIT_MS));

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
  return { name: typeof name === 'string' ? name : 'Error', message: typeof message === 'string' ? message : String(error), ...(typeof code === 'string' ? { code } : {}) };
};

const post = (reply: WriterReply) => port.postMessage(reply);

const poll = setInterval(() => {
  try {
    post({ op: 'version', version: Number(db.pragma('data_version', { simple: true })) });
  } catch {
    // The file gone or unreadable: no reading, so the velocity cache stops answering (VERSION_FRESH_MS).
  }
}, VERSION_POLL_MS);

type CommitRequest = Extract<WriterRequest, { op: 'commit' }>;

/** The commits' rows in one transaction; the first is answered with its increments, the others with none. */
function commitTogether(commits: readonly CommitRequest[]): void {
  try {
    const writes = commitStatements(commits.length === 1 ? (commits[0] as CommitRequest).rows : commits.flatMap((c) => c.rows));
    const rest = commit(writes);
    const statements = commits.some((c) => c.observe) ? [...writes.events, ...writes.counters.first, ...rest] : undefined;
    commits.forEach((c, i) => {
      const increments = i === 0 ? writes.counters.increments() : { counts: [], addresses: [] };
      post({ id: c.id, ok: true, increments, ...(i === 0 && statements ? { statements } : {}) });
    });
  } catch (error) {
    // Unreachable or out of space: each alone would only fail again, slowly.
    if (commits.length === 1 || isUnavailable(error)) for (const c of commits) post({ id: c.id, ok: false, error: errorOf(error) });
    else for (const c of commits) commitTogether([c]);
  }
}

function close(request: WriterRequest): void {
  clearInterval(poll);
  db.close();
  post({ id: request.id, ok: true });
  port?.close();
}

// The request that woke the thread and every one queued behind it, in order; a run of commits goes together.
port.on('message', (first: WriterRequest) => {
  const requests = [first];
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) requests.push(next.message as WriterRequest);
  for (let i = 0; i < requests.length; ) {
    const request = requests[i] as WriterRequest;
    if (request.op === 'close') return close(request);
    if (request.op === 'write') {
      try {
        post({ id: request.id, ok: true, rows: write(request.statements) });
      } catch (error) {
        post({ id: request.id, ok: false, error: errorOf(error) });
      }
      i += 1;
      continue;
    }
    const together: CommitRequest[] = [];
    let rows = 0;
    for (let next = requests[i]; next?.op === 'commit' && (together.length === 0 || rows + next.rows.length <= MAX_ROWS_PER_COMMIT); next = requests[++i]) {
      together.push(next);
      rows += next.rows.length;
    }
    commitTogether(together);
  }
});
