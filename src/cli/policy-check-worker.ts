// The policy check thread (src/policy/check-thread.ts): the plugin registry indexed once, then each text it is
// sent checked by load.ts's checkPolicy, as the main thread would, and the outcome sent back.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../engine/catalog.js';
import type { CheckAnswer } from '../policy/check-thread.js';
import { PolicyError, PolicyLimitError } from '../policy/errors.js';
import { checkPolicy, type PolicySource } from '../policy/load.js';

// The lowest CPU priority for this thread only (Linux: a thread's id is a pid to setpriority): a check can wait, a
// request cannot; on two cores a busy check thread at the process's priority raised a bystander's p99 (6.6 → 11.9 ms).
// Its id also lets the caller read the thread's CPU time, against which a check's deadline counts.
let tid: number | undefined;
try {
  tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  setPriority(tid, 19);
} catch {}

// yaml makes an Error of every syntax problem; without their stack traces a text full of them is checked in half the time.
Error.stackTraceLimit = 0;
const catalog = new FactCatalog(registry);

parentPort?.on('message', ({ id, source }: { id: number; source: PolicySource }) => {
  let answer: CheckAnswer;
  try {
    answer = { id, checked: checkPolicy(source, catalog) };
  } catch (error) {
    if (error instanceof PolicyLimitError) answer = { id, limit: error.problem };
    else if (error instanceof PolicyError) answer = { id, problems: error.problems };
    else answer = { id, failure: (error as Error).message ?? String(error) };
  }
  parentPort?.postMessage(answer);
});
parentPort?.postMessage({ ready: true, tid });
