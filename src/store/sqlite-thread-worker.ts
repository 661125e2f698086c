// The store thread's side (sqlite-thread.ts is the event loop's): one better-sqlite3 connection that
// commits the event writer's groups and answers velocity reads, with the velocity cache beside it. Reads
// and commits share the connection and run in the order they arrive, so a read sees every commit
// acknowledged before it was asked, and the connection's PRAGMA data_version changes exactly when another
// connection commits (velocity-cache.ts): the cache stays exact as it was on the event loop.
//
// Every answer carries the connection's data_version and the time it was read (before a read's work, after a
// commit's): the event loop's replica of the cache (sqlite-thread.ts) learns from it that another connection wrote. A commit's
// answer carries the counters it added, and a velocity read's the subjects as held after it, so that the
// replica follows the same commits in the same order (answers arrive in the order they are sent).
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { type RestartFlag, restartWanted } from './sqlite-checkpoints.js';
import type { Answer, StoreReply, StoreRequest, ThreadError } from './sqlite-thread.js';
import { BUSY_TIMEOUT_MS, EVENT_COLUMNS, PRAGMAS, prepareEventCommit, type RanStatement, rowsOfFlat } from './sqlite-writes.js';
import { addedToWire, type RowsWire, rowsToWire, type VelocityWire, velocityToWire } from './thread-wire.js';
import { usageOfBindings } from './usage.js';
import { createVelocityCache, type HeldSubject, type VelocityCache } from './velocity-cache.js';
import { type Reads, subjectVelocity } from './velocity-queries.js';

/** Statements kept prepared for velocity reads; past it the oldest goes (and is prepared again if asked). */
const MAX_PREPARED_READS = 64;

if (!parentPort) throw new Error('sqlite-thread-worker runs as a worker thread (sqlite-thread.ts starts it)');
const port: MessagePort = parentPort;
const { filename, restart } = workerData as { filename: string; restart: RestartFlag };

let conn: Database.Database | null = null;
let commit: ReturnType<typeof prepareEventCommit> | null = null;
let reads: Reads | null = null;
let cache: VelocityCache | null = null;
let dataVersion: (() => number) | null = null;
/** Statements in one transaction, each one's rows (see SqliteThread.write). */
let writeAll: ((statements: readonly { sql: string; bindings: readonly unknown[] }[]) => Array<Array<Record<string, unknown>>>) | null = null;

function open(): void {
  // Opened on the first request: by then migrations have created the file and its tables.
  const db = new Database(filename, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  for (const pragma of PRAGMAS) db.pragma(pragma);
  const version = db.prepare('pragma data_version').pluck();
  dataVersion = () => version.get() as number;
  const held = createVelocityCache(dataVersion);
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      if (prepared.size >= MAX_PREPARED_READS) prepared.delete(prepared.keys().next().value as string);
      prepared.set(sql, stmt);
    }
    return stmt;
  };
  const prepare = prepareEventCommit(db);
  commit = (rows, usage, ran) => {
    const added = prepare(rows, usage, ran);
    held.apply(added.counts, added.addresses); // committed: the cache follows
    return added;
  };
  reads = { all: async ({ sql, bindings }) => statement(sql).all(...bindings) as Array<Record<string, unknown>>, cache: held };
  writeAll = db.transaction((statements: readonly { sql: string; bindings: readonly unknown[] }[]) =>
    statements.map(({ sql, bindings }) => {
      const stmt = statement(sql);
      if (stmt.reader) return stmt.all(...bindings) as Array<Record<string, unknown>>;
      stmt.run(...bindings);
      return [];
    }),
  );
  cache = held;
  conn = db;
}

type InsertRequest = Extract<StoreRequest, { op: 'insert' }>;

/**
 * The most values (rows × columns) one commit takes of the inserts waiting: the event writer's own limit of
 * rows per commit (5,000), in the flat form they travel in.
 */
const MAX_GROUP_VALUES = 5_000 * EVENT_COLUMNS.length;

/**
 * The inserts waiting one behind the other, committed as one transaction (a group commit on the thread: a
 * commit costs about half as much per event with 32 events as with 2), answered by one reply whose
 * `settles` lists the others. When that commit fails (a row refused), each insert commits alone, so that
 * only the refused row's caller sees the error.
 */
function commitInserts(group: readonly InsertRequest[]): StoreReply[] {
  const [first] = group;
  if (!first) return [];
  if (group.length === 1) return [insert(first)];
  const merged: InsertRequest = {
    ...first,
    values: group.flatMap((r) => r.values),
    usage: group.flatMap((r) => r.usage),
    observe: group.some((r) => r.observe),
    replica: group.some((r) => r.replica),
  };
  const reply = insert(merged);
  if (reply.ok) return [{ ...reply, settles: group.slice(1).map((r) => r.id) }];
  return group.map(insert);
}

function insert(request: InsertRequest): StoreReply {
  const { id } = request;
  try {
    if (!conn) open();
    // The checkpoint thread found the log past its limit (sqlite-checkpoints.ts): copy what it has not, here,
    // so that this commit finds the whole log copied and starts it again (no other writer in between).
    let caughtUp = false;
    if (restartWanted(restart)) {
      try {
        const [done] = (conn as Database.Database).pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
        caughtUp = done !== undefined && done.log === done.checkpointed; // else a reader holds part of it
      } catch {
        // the commit goes on; the checkpoint thread's RESTART follows a turn later
      }
    }
    const ran: RanStatement[] | undefined = request.observe ? [] : undefined;
    const rows = rowsOfFlat(request.values);
    const added = commit?.(rows, usageOfBindings(request.usage), ran ? (s) => ran.push(s) : undefined);
    // Read after the commit, not before it as for a read: no other connection commits while this one holds the
    // write lock, and one that committed before it shows in this version. The replica is as fresh as the commit's
    // end (a commit waiting for a core or for the lock took its age past REPLICA_FRESH_MS before its answer came).
    const seen = { version: (dataVersion as () => number)(), at: Date.now() };
    return {
      id,
      ok: true,
      ...seen,
      rows: rows.length,
      ...(ran ? { statements: ran } : {}),
      ...(added && request.replica ? { added: addedToWire(added) } : {}),
      ...(caughtUp ? { caughtUp: true as const } : {}),
    };
  } catch (error) {
    return { id, ok: false, error: threadError(error) };
  }
}

async function answer(request: Exclude<StoreRequest, InsertRequest>): Promise<StoreReply> {
  const { id } = request;
  try {
    if (request.op === 'close') {
      conn?.close();
      conn = null;
      cache = null;
      dataVersion = null;
      writeAll = null;
      return { id, ok: true };
    }
    if (!conn) open();
    // Read before the work: what the answer holds is at least as new as this version says.
    const seen = { version: (dataVersion as () => number)(), at: Date.now() };
    if (request.op === 'write') {
      // One transaction: an error fails the whole call (nothing written), unlike a batch of reads.
      const written = (writeAll as NonNullable<typeof writeAll>)(request.statements);
      return { id, ok: true, ...seen, reads: written.map((rows) => ({ value: rowsToWire(rows) })) };
    }
    if (request.op === 'reads') {
      const answers: Answer<RowsWire>[] = [];
      for (const statement of request.statements) {
        try {
          answers.push({ value: rowsToWire(await (reads as Reads).all(statement)) });
        } catch (error) {
          answers.push({ error: threadError(error) });
        }
      }
      return { id, ok: true, ...seen, reads: answers };
    }
    const velocities: Answer<VelocityWire>[] = [];
    const subjects: Array<HeldSubject | null> = [];
    for (const query of request.queries) {
      try {
        velocities.push({ value: velocityToWire(await subjectVelocity(reads as Reads, query)) });
      } catch (error) {
        velocities.push({ error: threadError(error) });
      }
      if (request.replica) subjects.push(cache?.held(query.projectId, query.kind, query.subject) ?? null);
    }
    return { id, ok: true, ...seen, velocities, ...(request.replica ? { held: subjects } : {}) };
  } catch (error) {
    return { id, ok: false, error: threadError(error) };
  }
}

function threadError(error: unknown): ThreadError {
  const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
  return { name: String(name ?? 'Error'), message: String(message ?? error), ...(typeof code === 'string' ? { code } : {}) };
}

// One request at a time, in arrival order: a velocity read never overtakes a commit asked before it, nor a
// commit a read. The inserts at the head of the inbox, with those still waiting on the port, commit together.
const inbox: StoreRequest[] = [];
let draining = false;

port.on('message', (request: StoreRequest) => {
  inbox.push(request);
  if (!draining) void drain();
});

async function drain(): Promise<void> {
  draining = true;
  try {
    while (inbox.length > 0) {
      const request = inbox.shift() as StoreRequest;
      if (request.op !== 'insert') {
        port.postMessage(await answer(request));
        continue;
      }
      // Messages posted before now but not yet dispatched come after everything in the inbox.
      for (let waiting = receiveMessageOnPort(port); waiting; waiting = receiveMessageOnPort(port)) {
        inbox.push(waiting.message as StoreRequest);
      }
      const group = [request];
      let values = request.values.length;
      for (let next = inbox[0]; next?.op === 'insert' && values + next.values.length <= MAX_GROUP_VALUES; next = inbox[0]) {
        group.push(next);
        values += next.values.length;
        inbox.shift();
      }
      for (const reply of commitInserts(group)) port.postMessage(reply);
    }
  } finally {
    draining = false;
  }
}
