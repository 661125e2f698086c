// Policy texts a request brings (the playground's) checked on a thread of their own, so that no text, however
// bad, holds up the event loop: a text within the limits (limits.ts) can still take a parser half a second of CPU
// here (docs/decisions/0008-policy-checks-off-the-event-loop.md). The thread (src/cli/policy-check-worker.ts)
// runs load.ts's checkPolicy and sends back the checked document; the caller compiles it (1-2 ms). One check
// runs at a time, each with a deadline of the thread's CPU time (it runs at the lowest priority, so on a busy
// machine it waits for a core, and waiting is no cost), bounded in wall time too; a few wait their turn, and
// past them a check is refused at once. The thread starts on the first check and is started again after a
// failure or a deadline missed.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PolicyError, PolicyLimitError, type PolicyProblem } from './errors.js';
import type { CheckedPolicy, PolicySource } from './load.js';

/** The CPU time one check may take on the thread; past it the thread is stopped (it is started again). */
export const CHECK_DEADLINE_MS = 2_000;
/** A check is also stopped after this many times its deadline in wall time, however little CPU it had. */
const WALL_DEADLINE_TIMES = 5;
/** Checks waiting for the thread; past them a check is refused at once. */
export const CHECKS_WAITING_AT_MOST = 8;
/** How long the thread may take to start (it indexes the plugin registry). */
const START_DEADLINE_MS = 30_000;
/** The thread's heap: a check needs a few MB; a runaway one is stopped here rather than in the process. */
const THREAD_HEAP_MB = 256;

/** The thread's answer to one check. */
export type CheckAnswer =
  | { id: number; checked: CheckedPolicy }
  | { id: number; limit: PolicyProblem }
  | { id: number; problems: PolicyProblem[] }
  | { id: number; failure: string };

/** A check that could not be made now (the thread is busy, slow or down): worth a retry in `retryAfterSeconds`. */
export class PolicyCheckUnavailable extends Error {
  override readonly name = 'PolicyCheckUnavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

export interface PolicyChecks {
  /**
   * checkPolicy's answer for the source, from the thread: the checked policy, or the PolicyError (a
   * PolicyLimitError for a limit passed) it throws; PolicyCheckUnavailable when it cannot be checked now.
   */
  check(source: PolicySource): Promise<CheckedPolicy>;
  close(): Promise<void>;
}

interface Job {
  id: number;
  source: PolicySource;
  resolve(checked: CheckedPolicy): void;
  reject(error: Error): void;
}

export interface PolicyCheckOptions {
  /** The thread's module (the built src/cli/policy-check-worker.js). */
  workerFile: string;
  deadlineMs?: number;
  waitingAtMost?: number;
}

export function createPolicyChecks(options: PolicyCheckOptions): PolicyChecks {
  const deadlineMs = options.deadlineMs ?? CHECK_DEADLINE_MS;
  const waitingAtMost = options.waitingAtMost ?? CHECKS_WAITING_AT_MOST;
  const waiting: Job[] = [];
  let running: { job: Job; timer: NodeJS.Timeout } | null = null;
  let thread: { worker: Worker; ready: boolean; tid?: number; startTimer: NodeJS.Timeout } | null = null;
  let nextId = 1;
  let closed = false;

  const start = () => {
    const worker = new Worker(options.workerFile, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    const startTimer = setTimeout(() => stop(worker, `the policy check thread did not start within ${START_DEADLINE_MS} ms`), START_DEADLINE_MS);
    const started: NonNullable<typeof thread> = { worker, ready: false, startTimer };
    worker.on('message', (message: { ready: true; tid?: number } | CheckAnswer) => {
      if ('ready' in message) {
        clearTimeout(startTimer);
        started.ready = true;
        started.tid = message.tid;
        next();
        return;
      }
      if (!running || running.job.id !== message.id) return;
      const { job, timer } = running;
      clearTimeout(timer);
      running = null;
      settle(job, message);
      next();
    });
    worker.on('error', (error) => stop(worker, `the policy check thread failed: ${error.message}`));
    worker.on('exit', () => stop(worker, 'the policy check thread stopped'));
    return started;
  };

  /** Ends this thread (if it is still the current one), failing the check it was making; the next check starts another. */
  const stop = (worker: Worker, reason: string) => {
    const current = thread;
    if (current?.worker !== worker) return;
    clearTimeout(current.startTimer);
    thread = null;
    void worker.terminate();
    const failed = running ? [running.job] : [];
    if (running) clearTimeout(running.timer);
    running = null;
    // A thread that never started fails everyone waiting (rather than starting again and again): the next check tries anew.
    if (!current.ready) failed.push(...waiting.splice(0));
    for (const job of failed) job.reject(new PolicyCheckUnavailable(`${reason}; retry`));
    next();
  };

  const next = () => {
    if (closed || running || waiting.length === 0) {
      if (!running && waiting.length === 0) thread?.worker.unref(); // an idle thread holds no process open
      return;
    }
    thread ??= start();
    thread.worker.ref();
    if (!thread.ready) return;
    const job = waiting.shift() as Job;
    const { worker, tid } = thread;
    const sent = { at: Date.now(), cpuMs: threadCpuMs(tid) };
    // At the deadline: stopped if the thread used its CPU time (or it cannot be read) or waited too long; else
    // watched again when it could have used the rest.
    const watch = () => {
      const cpuMs = threadCpuMs(tid);
      const used = cpuMs === undefined || sent.cpuMs === undefined ? deadlineMs : cpuMs - sent.cpuMs;
      if (used >= deadlineMs) return stop(worker, `checking the policy took longer than ${deadlineMs} ms`);
      const wallMs = deadlineMs * WALL_DEADLINE_TIMES;
      if (Date.now() - sent.at >= wallMs) return stop(worker, `checking the policy took longer than ${wallMs} ms (the machine is busy)`);
      if (running?.job === job) running.timer = setTimeout(watch, Math.max(deadlineMs - used, 10));
    };
    running = { job, timer: setTimeout(watch, deadlineMs) };
    worker.postMessage({ id: job.id, source: job.source });
  };

  return {
    check(source) {
      if (closed) return Promise.reject(new PolicyCheckUnavailable('the service is stopping'));
      if (waiting.length >= waitingAtMost) {
        return Promise.reject(new PolicyCheckUnavailable(`${waiting.length} policy checks are waiting already; retry in 1 s`));
      }
      return new Promise<CheckedPolicy>((resolve, reject) => {
        waiting.push({ id: nextId++, source, resolve, reject });
        next();
      });
    },
    async close() {
      closed = true;
      for (const job of waiting.splice(0)) job.reject(new PolicyCheckUnavailable('the service is stopping'));
      const current = thread;
      if (current) {
        stop(current.worker, 'the service is stopping');
        await current.worker.terminate();
      }
    },
  };
}

/** The CPU time in ms a thread of this process has used (Linux's /proc, in ticks of 10 ms); undefined where it cannot be read. */
function threadCpuMs(tid: number | undefined): number | undefined {
  if (tid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // After "pid (name) ": state is the first field, utime the 12th and stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

function settle(job: Job, answer: CheckAnswer): void {
  if ('checked' in answer) job.resolve(answer.checked);
  else if ('limit' in answer) job.reject(new PolicyLimitError(answer.limit));
  else if ('problems' in answer) job.reject(new PolicyError(answer.problems));
  else job.reject(new Error(`the policy check failed: ${answer.failure}`));
}
