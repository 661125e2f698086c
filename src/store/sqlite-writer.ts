// The event loop's side of an embedded SQLite file's writer thread (sqlite-writer-thread.ts): event commits
// and the writes beside them (a domain's facts, a key's last use) go to the thread as rows or statements,
// and each call settles with its answer. A thread that stops, or does not answer within ANSWER_TIMEOUT_MS,
// fails the calls it held as an outage (503), and the next call starts another (docs/decisions/0078).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EventRow } from './commit-statements.js';
import { COMMIT_LOCK_WAIT_MS } from './sqlite-statements.js';
import type { ThreadError, WriterReply, WriterRequest } from './sqlite-writer-thread.js';
import { VERSION_FRESH_MS } from './velocity-cache.js';
import type { Statement } from './velocity-counters.js';

/** How long a call may wait for the thread's answer: a lock wait (COMMIT_LOCK_WAIT_MS) and the work after it. */
export const ANSWER_TIMEOUT_MS = COMMIT_LOCK_WAIT_MS + 5_000;

/**
 * The thread's heap: a commit holds at most 5,000 rows (event-writer.ts), and its garbage dies young. A small
 * young generation keeps few pages resident (the old store thread's RSS figures, docs/decisions/0020).
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 };

export type Increments = NonNullable<Extract<WriterReply, { ok: true }>['increments']>;

export interface SqliteWriter {
  /** Commits the rows with their counters and usage counts; the increments made, and the statements when `observe`. */
  commit(rows: readonly EventRow[], observe: boolean): Promise<{ increments: Increments; statements: Statement[] }>;
  /** Runs the statements in one transaction; their rows. */
  write(statements: readonly Statement[]): Promise<Array<Array<Record<string, unknown>>>>;
  /**
   * The thread connection's PRAGMA data_version as last read, or null when no reading came within
   * VERSION_FRESH_MS (or the thread stopped since): another connection's commit changes it.
   */
  version(): number | null;
  /** Stops the thread (after the calls in flight). */
  close(): Promise<void>;
}

/** The thread's JavaScript: beside this file once built; under vitest (TypeScript sources) the build's copy. */
function threadFile(): string {
  const here = fileURLToPath(import.meta.url);
  const root = join(dirname(here), '../..');
  const file = here.endsWith('.ts') ? join(root, 'dist/src/store/sqlite-writer-thread.js') : join(dirname(here), 'sqlite-writer-thread.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -p tsconfig.json)`);
  return file;
}

/** The thread's error as the caller's code expects it: name, message and the driver's code (isUnavailable). */
const rebuilt = (error: ThreadError): Error => Object.assign(new Error(error.message), { name: error.name }, error.code ? { code: error.code } : {});

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

interface Pending {
  thread: Worker;
  timer: NodeJS.Timeout;
  resolve(reply: Extract<WriterReply, { ok: true }>): void;
  reject(error: Error): void;
}

export interface WriterOptions {
  /** How long a call waits for the thread's answer (default ANSWER_TIMEOUT_MS). */
  answerTimeoutMs?: number;
  now?: () => number;
}

export function openSqliteWriter(filename: string, options: WriterOptions = {}): SqliteWriter {
  const answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  let thread: Worker | null = null;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  // What version() answers: a count raised whenever the thread's data_version changes, or the thread does.
  const known = { generation: 0, reported: null as number | null, at: Number.NEGATIVE_INFINITY };

  function fail(stopped: Worker, reason: string): void {
    if (thread === stopped) {
      thread = null;
      // Its last commits may have landed unanswered, and the next thread's data_version is another count.
      Object.assign(known, { reported: null, at: Number.NEGATIVE_INFINITY });
    }
    void stopped.terminate();
    const error = Object.assign(new Error(`the SQLite writer thread stopped: ${reason}`), { code: 'SQLITE_CANTOPEN' });
    for (const [id, p] of pending) {
      if (p.thread !== stopped) continue;
      pending.delete(id);
      clearTimeout(p.timer);
      p.reject(error);
    }
  }

  function start(): Worker {
    const started = new Worker(threadFile(), { workerData: { filename }, resourceLimits: RESOURCE_LIMITS });
    started.unref(); // held only while a call is pending
    started.on('message', (reply: WriterReply) => {
      if ('op' in reply) {
        if (started !== thread) return;
        if (reply.version !== known.reported) Object.assign(known, { generation: known.generation + 1, reported: reply.version });
        known.at = now();
        return;
      }
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      clearTimeout(p.timer);
      if (![...pending.values()].some((other) => other.thread === started)) started.unref();
      if (reply.ok) p.resolve(reply);
      else p.reject(rebuilt(reply.error));
    });
    started.on('error', (error) => fail(started, error.message));
    started.on('exit', (code) => fail(started, `exit code ${code}`));
    return started;
  }

  function call(request: WithoutId<WriterRequest>): Promise<Extract<WriterReply, { ok: true }>> {
    if (closed && request.op !== 'close') return Promise.reject(new Error('the event store is closed'));
    thread ??= start();
    const to = thread;
    const id = nextId++;
    return new Promise((resolve, reject) => {
      to.ref();
      const timer = setTimeout(() => fail(to, `no answer within ${answerTimeoutMs} ms`), answerTimeoutMs);
      pending.set(id, { thread: to, timer, resolve, reject });
      to.postMessage({ ...request, id });
    });
  }

  return {
    async commit(rows, observe) {
      const reply = await call({ op: 'commit', rows: rows as EventRow[], observe });
      return { increments: reply.increments as Increments, statements: reply.statements ?? [] };
    },
    async write(statements) {
      return (await call({ op: 'write', statements: [...statements] })).rows ?? [];
    },
    version: () => (thread !== null && now() - known.at <= VERSION_FRESH_MS ? known.generation : null),
    async close() {
      if (closed) return;
      closed = true;
      const last = thread;
      if (!last) return;
      await call({ op: 'close' }).catch(() => undefined);
      thread = null;
      await last.terminate();
    },
  };
}
