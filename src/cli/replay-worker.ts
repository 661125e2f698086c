// A worker thread of `policy replay` (replay-pool.ts): compiles the candidate policy once and decides the
// batches it is sent, in process, as src/service/policy-replay.ts does on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../engine/catalog.js';
import { loadPolicy } from '../policy/load.js';
import { batchDecider } from '../service/policy-replay.js';
import type { ReplayEvent } from '../store/replay-events.js';
import type { WorkerSetup } from './replay-pool.js';

const setup = workerData as WorkerSetup;
const policy = loadPolicy({ name: setup.name, file: setup.file }, new FactCatalog(registry));
const lists = new Map(Object.entries(setup.lists).map(([list, entries]) => [list, new Set(entries)]));
const EMPTY: ReadonlySet<string> = new Set();
const decide = batchDecider(policy, setup.projectId, { entries: async (list) => lists.get(list) ?? EMPTY });

parentPort?.on('message', async (message: { id: number; events: ReplayEvent[] }) => {
  try {
    parentPort?.postMessage({ id: message.id, decisions: await decide(message.events) });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: (error as Error).message ?? String(error) });
  }
});
