// WAL checkpoints of an embedded SQLite file off the event loop. The connections of the main thread
// (knex's, the event writer's) run better-sqlite3 synchronously, and SQLite's automatic checkpoint would
// copy the WAL into the database and fsync it inside whichever commit crosses 1,000 pages: tens to hundreds
// of ms on a busy disk, with every request waiting (node-sqlite3 did it on its thread pool). So those
// connections turn it off (PRAGMA wal_autocheckpoint=0) and a worker thread with a connection of its own
// runs a passive checkpoint every CHECKPOINT_EVERY_MS, and, when the log is past WAL_SIZE_LIMIT_BYTES, a
// restart of it if no commit is running: it never waits for a lock, and blocks a writer only while it copies
// what was committed since the passive one.
// The worker loads the same better-sqlite3 (one SQLite library in the process, so its locks are seen).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WAL_SIZE_LIMIT_BYTES } from './sqlite-writes.js';

export const CHECKPOINT_EVERY_MS = 1_000;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let db = null;
let pageSize = null;
const timer = setInterval(() => {
  try {
    db ??= new Database(workerData.filename, { fileMustExist: true, timeout: 0 });
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    // Under steady writes the passive checkpoint never catches up (commits land while it copies), and only a
    // writer that finds the whole log copied starts it again from its beginning: the log grew without end
    // (2.5 GB after 150,000 verifies). So, once it is past the limit and its bulk copied, a RESTART: with no
    // busy wait (timeout 0) it takes the write lock only when no commit holds it (else it stays passive),
    // copies the frames committed since, and leaves the log to be restarted by the next commit. Commits wait
    // for it that long (its copy and its fsyncs), once per limit's worth of writes rather than every second.
    // A second passive checkpoint first leaves it less to copy and to sync: the write lock held 0-43 ms
    // (median about 28) instead of 4-58 ms (about 45) over 10 restarts each.
    pageSize ??= db.pragma('page_size', { simple: true });
    if (log * pageSize > workerData.limitBytes) {
      db.pragma('wal_checkpoint(PASSIVE)');
      db.pragma('wal_checkpoint(RESTART)');
    }
  } catch {
    // busy or not there yet: the next turn tries again
  }
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  try { db?.close(); } catch {}
  parentPort.postMessage('closed');
});
`;

export interface Checkpoints {
  stop(): Promise<void>;
}

export function startCheckpoints(filename: string): Checkpoints {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { filename, module, everyMs: CHECKPOINT_EVERY_MS, limitBytes: WAL_SIZE_LIMIT_BYTES } });
  worker.unref();
  worker.on('error', () => {}); // a failed checkpoint thread leaves the WAL to grow until the last connection closes
  return {
    async stop() {
      const closed = new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('stop');
      await closed;
      await worker.terminate();
    },
  };
}
