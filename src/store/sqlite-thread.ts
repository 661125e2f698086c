// An embedded SQLite file's hot path off the event loop (issue 12): the event writer's group commits and
// the velocity reads run on a worker thread with a connection of its own (sqlite-thread-worker.ts); the
// event loop only posts a message and settles a promise. A commit of a few events cost the event loop
// about 80 µs of CPU per event, and the velocity read checked PRAGMA data_version on every call; on the
// thread they use a core the event loop does not.
//
// The thread blocks, not the event loop, when another connection holds the write lock (busy_timeout), so
// a knex transaction on the event loop can always finish. When the thread dies, every pending call fails
// as an outage (SQLITE_CANTOPEN: 503) and the next call starts a new thread. Statements a commit ran are
// sent back and mirrored on knex's `query` event while something listens to it, so every statement of the
// store stays observable in one place.
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import type { Velocity } from '../engine/plugin.js';
import { eventBatchSize, logCatchUps, velocityReads } from '../metrics.js';
import { packageRoot } from '../paths.js';
import type { EventRow } from './event-writer.js';
import { type Checkpoints, restartFlag, startCheckpoints } from './sqlite-checkpoints.js';
import { flatRows, type RanStatement } from './sqlite-writes.js';
import { type AddedWire, addedFromWire, type Rows, type RowsWire, rowsFromWire, type VelocityWire, velocityFromWire } from './thread-wire.js';
import { usageBindings, usageOf } from './usage.js';
import { createVelocityCache, type HeldSubject } from './velocity-cache.js';
import { cachedVelocity, type Statement, type SubjectQuery } from './velocity-queries.js';

export type StoreRequest =
  | { id: number; op: 'insert'; values: readonly unknown[]; usage: readonly unknown[]; observe: boolean; replica: boolean }
  | { id: number; op: 'velocity'; queries: SubjectQuery[]; replica: boolean }
  | { id: number; op: 'reads'; statements: Statement[] }
  | { id: number; op: 'write'; statements: Statement[] }
  | { id: number; op: 'close' };

export interface ThreadError {
  name: string;
  message: string;
  code?: string;
}

/** One answer of a batch (velocity queries, read statements): each one of a batch fails alone. */
export type Answer<T> = { value: T } | { error: ThreadError };

export type { Rows } from './thread-wire.js';

export type StoreReply =
  | {
      id: number;
      ok: true;
      velocities?: Answer<VelocityWire>[];
      reads?: Answer<RowsWire>[];
      statements?: RanStatement[];
      /** The connection's PRAGMA data_version, and the time (Date.now) it was read: before a read's work, after a commit's. */
      version?: number;
      at?: number;
      /** A commit's increments to the velocity counters (when asked: `replica`). */
      added?: AddedWire;
      /** A velocity read's subjects as the thread's cache holds them after it, one per query (when asked). */
      held?: Array<HeldSubject | null>;
      /** A commit's: the thread copied the rest of the log first (sqlite-checkpoints.ts), so this commit started it again. */
      caughtUp?: true;
      /** A commit's: the other inserts it committed with this one's rows (sqlite-thread-worker.ts), settled by it too. */
      settles?: number[];
      /** A commit's: the rows it committed, those of `settles` included. */
      rows?: number;
    }
  | { id: number; ok: false; error: ThreadError };

/** Each answer's value decoded, its error as it came. */
function decoded<W, T>(answers: ReadonlyArray<Answer<W>> | undefined, decode: (w: W) => T): Answer<T>[] | undefined {
  return answers?.map((a) => ('value' in a ? { value: decode(a.value) } : a));
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface SqliteThread {
  /** Commits the rows, their velocity counters and their usage counts in one transaction, or nothing. */
  insert(rows: readonly EventRow[]): Promise<void>;
  /** One subject's velocity (velocity-queries.ts): from the replica at once, or from the thread's exact cache or its statements. */
  velocity(query: SubjectQuery): Velocity | Promise<Velocity>;
  /** The rows of one bounded read statement (intelligence's history by address and by IP), run on the thread. */
  all(statement: Statement): Promise<Rows>;
  /**
   * The statements in one transaction on the thread's connection, each one's rows (RETURNING) in order; all or
   * nothing. For this process's small writes beside the events (a key's last use, a domain's facts): through knex's
   * connection each would change the thread's data_version and empty both velocity caches.
   */
  write(statements: readonly Statement[]): Promise<Rows[]>;
  /** After a commit on another connection of this process (retention through knex): the replica answers again once the thread has seen it. */
  forget(): void;
  close(): Promise<void>;
}

interface Pending {
  /** The thread the call was posted to: a thread's death fails its own calls only. */
  thread: Worker;
  request: WithoutId<StoreRequest>;
  resolve(reply: StoreReply & { ok: true }): void;
  reject(error: Error): void;
}

/** The worker's JavaScript: beside this file once built; under vitest (TypeScript sources) the build's copy. */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const built = here.endsWith('.ts') ? join(packageRoot, 'dist/src/store/sqlite-thread-worker.js') : join(dirname(here), 'sqlite-thread-worker.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: build first (npx tsc -p tsconfig.json)`);
  return built;
}

/** An error of the thread as the caller's code expects it: name, message and the driver's code (isUnavailable). */
function rebuilt(error: ThreadError): Error {
  return Object.assign(new Error(error.message), { name: error.name }, error.code ? { code: error.code } : {});
}

/**
 * Asks made in one event-loop turn, sent together by `send` at the end of the turn; each settles with its
 * own answer, or the send's error.
 */
function perTurn<Q, T>(send: (asks: Q[]) => Promise<ReadonlyArray<Answer<T>> | undefined>): (ask: Q) => Promise<T> {
  let waiting: Array<{ ask: Q; resolve(value: T): void; reject(error: Error): void }> = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    send(batch.map((w) => w.ask)).then(
      (answers) =>
        batch.forEach((w, i) => {
          const answer = answers?.[i];
          if (answer && 'value' in answer) w.resolve(answer.value);
          else w.reject(answer ? rebuilt(answer.error) : new Error('the store thread gave no answer'));
        }),
      (error: Error) => {
        for (const w of batch) w.reject(error);
      },
    );
  };
  return (ask) =>
    new Promise<T>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ ask, resolve, reject });
    });
}

/**
 * The thread's heap: its velocity cache (at most 1,024 subjects of about 20 KB) and a commit's rows (at most
 * 5,000) fit many times over; past it the thread dies (ERR_WORKER_OUT_OF_MEMORY), its calls fail as an
 * outage and the next call starts another, instead of the process growing without bound.
 */
export const THREAD_HEAP_MB = 256;

/**
 * The thread's young generation. Node's default (16 MB semi-spaces) is sized for the event loop; the thread's
 * garbage (messages, rows, statement results) dies young whatever its size, and a smaller one keeps fewer
 * pages resident: RSS after the bench's loads 238-239 MB with the default, 217-221 MB with 8 MB and 206-212
 * MB with 4 MB (two runs each, scratch script), at the same CPU per event within the noise of
 * bench/store.ts (60-77 µs). Taken down from 8 to 4 MB when the bench's peak went past 250 MB (260 and 262 MB
 * in two of three runs on a slower machine): one load sequence peaked at 235 and 203 MB with 8, 196 and 193 MB
 * with 4, and bench/store.ts wrote an event in 92-126 µs with 8 and 103-125 µs with 4 (alternating runs).
 */
export const THREAD_YOUNG_MB = 4;

/**
 * How long after the thread last read its connection's data_version the event loop's replica of the
 * velocity cache may answer: a commit of another connection (a second process on the file, the CLI) is
 * seen by the thread's next answer, and by the velocity reads at most this long after it. At 20 ms, under
 * the bench's verify load on a slow machine (answers 11 ms old at the median, 17-31 ms at the 90th
 * percentile), 6-10 % of the reads went to the thread, each a round trip queued behind the commit in
 * progress; and whenever the thread stalled (waiting for a core, 8-21 ms), every read after the first 20 ms
 * waited for the stall, then for a commit of its own. At 50 ms nearly none do, and a velocity window (5
 * minutes or more) does not tell 20 from 50 ms.
 */
export const REPLICA_FRESH_MS = 50;

const answeredByReplica = velocityReads.labels('replica');
const answeredByThread = velocityReads.labels('thread');

export interface ThreadOptions {
  /** The thread's old-generation heap limit (resourceLimits.maxOldGenerationSizeMb). */
  heapMb?: number;
  /**
   * Velocity reads answered on the event loop from a replica of the thread's cache (default: on, but off in
   * a worker process of WORKERS, whose siblings commit to the same file all the time).
   */
  replica?: boolean;
  /** REPLICA_FRESH_MS unless set (a test's). */
  replicaFreshMs?: number;
  /** The clock the replica's freshness is read on: Date.now (the thread's clock) unless a test moves it on. */
  now?: () => number;
  /** How far the log grows before it starts again (WAL_SIZE_LIMIT_BYTES unless set: a test's). */
  walLimitBytes?: number;
}

export function openSqliteThread(filename: string, knex: Knex, options: ThreadOptions = {}): SqliteThread {
  let worker: Worker | null = null;
  let checkpoints: Checkpoints | null = null;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  // Raised by the checkpoint thread when the log should start again, lowered by the store thread's next commit.
  const restart = restartFlag();
  // The replica: the thread's cache as the thread's answers describe it, applied in the order they come. It
  // answers only while the thread has read data_version within REPLICA_FRESH_MS, and not since forget().
  const replica = (options.replica ?? !cluster.isWorker) ? createVelocityCache(() => known.version) : null;
  const freshMs = options.replicaFreshMs ?? REPLICA_FRESH_MS;
  const now = options.now ?? Date.now;
  const known = { version: Number.NaN, at: Number.NEGATIVE_INFINITY, forgotAt: Number.NEGATIVE_INFINITY };
  const follow = (reply: StoreReply & { ok: true }, request: WithoutId<StoreRequest>) => {
    if (!replica || reply.version === undefined || reply.at === undefined) return;
    if (reply.version !== known.version) {
      replica.clear(); // another connection wrote
      known.version = reply.version;
    }
    if (reply.at > known.forgotAt && reply.at > known.at) known.at = reply.at;
    if (reply.added) {
      const { counts, addresses } = addedFromWire(reply.added);
      replica.apply(counts, addresses);
    }
    if (reply.held && request.op === 'velocity') {
      reply.held.forEach((held, i) => {
        const q = request.queries[i];
        if (held && q) replica.adopt(q.projectId, q.kind, q.subject, held);
      });
    }
  };
  const forget = () => {
    replica?.clear();
    known.at = Number.NEGATIVE_INFINITY;
    known.forgotAt = Date.now();
  };
  /** Calls waiting on each thread: a thread holds the process open only while it has some. */
  const waiting = new Map<Worker, number>();
  const settle = (thread: Worker) => {
    const left = (waiting.get(thread) ?? 1) - 1;
    if (left > 0) waiting.set(thread, left);
    else {
      waiting.delete(thread);
      thread.unref();
    }
  };

  function failAll(thread: Worker, reason: string): void {
    if (worker === thread) {
      worker = null; // the next call starts another
      forget(); // its last commits may have landed unanswered; the next thread's data_version is another count
      known.version = Number.NaN;
    }
    const error = Object.assign(new Error(`the store thread stopped: ${reason}`), { code: 'SQLITE_CANTOPEN' });
    for (const [id, p] of pending) {
      if (p.thread !== thread) continue;
      pending.delete(id);
      settle(thread);
      p.reject(error);
    }
  }

  function start(): Worker {
    const thread = new Worker(workerFile(), {
      workerData: { filename, restart },
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? THREAD_HEAP_MB, maxYoungGenerationSizeMb: THREAD_YOUNG_MB },
    });
    thread.unref(); // held only while a call is pending (call())
    thread.on('message', (reply: StoreReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      settle(thread);
      if (reply.ok && thread === worker) follow(reply, p.request);
      if (reply.ok) p.resolve(reply);
      else p.reject(rebuilt(reply.error));
      if (!reply.ok) return;
      // Committed with it: their rows are in the same transaction, whose counters this reply carried.
      for (const id of reply.settles ?? []) {
        const other = pending.get(id);
        if (!other) continue;
        pending.delete(id);
        settle(thread);
        other.resolve({ id, ok: true });
      }
    });
    thread.on('error', (error) => failAll(thread, error.message));
    thread.on('exit', (code) => failAll(thread, `exit code ${code}`));
    checkpoints ??= startCheckpoints(filename, restart, options.walLimitBytes);
    return thread;
  }

  function call(request: WithoutId<StoreRequest>): Promise<StoreReply & { ok: true }> {
    if (closed) return Promise.reject(new Error('the event store is closed'));
    worker ??= start();
    const thread = worker;
    const id = nextId++;
    return new Promise((resolve, reject) => {
      thread.ref();
      waiting.set(thread, (waiting.get(thread) ?? 0) + 1);
      pending.set(id, { thread, request, resolve, reject });
      thread.postMessage({ ...request, id });
    });
  }

  // Velocity queries of one event-loop turn travel in one message (a message costs the loop ~10 µs), and so
  // do read statements.
  const viaThread = perTurn<SubjectQuery, Velocity>(async (queries) =>
    decoded((await call({ op: 'velocity', queries, replica: replica !== null })).velocities, velocityFromWire),
  );
  const velocity = (query: SubjectQuery): Velocity | Promise<Velocity> => {
    if (replica && now() - known.at <= freshMs) {
      const held = cachedVelocity(replica, query);
      if (held) {
        answeredByReplica.inc();
        return held;
      }
    }
    answeredByThread.inc();
    return viaThread(query);
  };
  const all = perTurn<Statement, Rows>(async (statements) => decoded((await call({ op: 'reads', statements })).reads, rowsFromWire));

  return {
    async insert(rows) {
      const observe = knex.listenerCount('query') > 0;
      const reply = await call({ op: 'insert', values: flatRows(rows), usage: usageBindings(usageOf(rows)), observe, replica: replica !== null });
      // Counted once per transaction, by the insert whose reply it is (not by those it settled).
      if (reply.rows !== undefined) eventBatchSize.observe(reply.rows);
      if (reply.caughtUp) logCatchUps.inc();
      for (const s of reply.statements ?? []) knex.emit('query', { method: 'raw', sql: s.sql, bindings: s.bindings });
    },
    velocity,
    all,
    async write(statements) {
      const reply = await call({ op: 'write', statements: [...statements] });
      // Whoever watches every statement of the store (knex's `query` event) sees these too, as the commits'.
      if (knex.listenerCount('query') > 0) for (const s of statements) knex.emit('query', { method: 'raw', sql: s.sql, bindings: s.bindings });
      return (reply.reads ?? []).map((answer) => {
        if ('value' in answer) return rowsFromWire(answer.value);
        throw rebuilt(answer.error);
      });
    },
    forget,
    async close() {
      forget();
      if (closed) return;
      const thread = worker;
      if (thread) await call({ op: 'close' }).catch(() => {});
      closed = true;
      worker = null;
      await checkpoints?.stop();
      checkpoints = null;
      if (thread) await thread.terminate();
    },
  };
}
