// `policy replay` on several cores: worker threads (replay-worker.ts), each with the candidate policy
// compiled once, decide batches of events while the main thread reads the next ones from the database.
// The project's lists are read once here and handed to every worker. Only from the built package (dist/):
// under the test runner the worker's module is TypeScript, and the replay runs in process instead.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BatchDecider, BatchDecisions } from '../service/policy-replay.js';

export interface WorkerSetup {
  /** The candidate policy file and the name it is reported under. */
  file: string;
  name: string;
  projectId: string;
  /** The project's own lists (list name → entries), as they are now. */
  lists: Record<string, string[]>;
}

export interface ReplayPool {
  decide: BatchDecider;
  /** Batches to keep in flight: two per worker, so none waits for the main thread. */
  inFlight: number;
  close(): Promise<void>;
}

const WORKER_FILE = fileURLToPath(new URL('./replay-worker.js', import.meta.url));

/** Whether worker threads can run here (the built package); otherwise the caller decides in process. */
export function poolAvailable(): boolean {
  return existsSync(WORKER_FILE);
}

/** `size` workers; batches go to the one with the fewest in hand. */
export function openReplayPool(size: number, setup: WorkerSetup): ReplayPool {
  const workers = Array.from({ length: size }, () => ({ worker: new Worker(WORKER_FILE, { workerData: setup }), busy: 0 }));
  const waiting = new Map<number, { resolve(d: BatchDecisions): void; reject(e: Error): void; slot: (typeof workers)[number] }>();
  let nextId = 0;
  for (const slot of workers) {
    slot.worker.on('message', (message: { id: number; decisions?: BatchDecisions; error?: string }) => {
      const job = waiting.get(message.id);
      if (!job) return;
      waiting.delete(message.id);
      slot.busy -= 1;
      if (message.decisions) job.resolve(message.decisions);
      else job.reject(new Error(`a replay worker failed: ${message.error}`));
    });
    slot.worker.on('error', (error) => {
      for (const [id, job] of waiting) {
        if (job.slot !== slot) continue;
        waiting.delete(id);
        job.reject(new Error(`a replay worker stopped: ${error.message}`));
      }
    });
  }
  return {
    inFlight: size * 2,
    decide(events) {
      const slot = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
      slot.busy += 1;
      const id = nextId++;
      return new Promise<BatchDecisions>((resolve, reject) => {
        waiting.set(id, { resolve, reject, slot });
        slot.worker.postMessage({ id, events });
      });
    },
    async close() {
      await Promise.all(workers.map(({ worker }) => worker.terminate()));
    },
  };
}
