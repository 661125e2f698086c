// WAL checkpoints of an embedded SQLite file off the event loop. The connections of the main thread
// (knex's, the event writer's) run better-sqlite3 synchronously, and SQLite's automatic checkpoint would
// copy the WAL into the database and fsync it inside whichever commit crosses 1,000 pages: tens to hundreds
// of ms on a busy disk, with every request waiting (node-sqlite3 did it on its thread pool). So those
// connections turn it off (PRAGMA wal_autocheckpoint=0) and a worker thread with a connection of its own
// runs a passive checkpoint every CHECKPOINT_EVERY_MS: it never waits for a lock and never blocks a writer.
//
// The log starts again from its beginning only when a writer finds all of it copied, which under steady
// commits never happens by itself (commits land while the checkpoint copies). Once it is past
// WAL_SIZE_LIMIT_BYTES the thread asks the store thread (sqlite-thread-worker.ts), through `restart`, to
// copy what was committed since, itself, before its next commit: with no other writer in between, that
// commit finds the whole log copied and starts it again. Until 2026-11-28 this thread ran a RESTART
// checkpoint instead, holding the write lock for its copy and fsyncs (19-30 ms) while the store thread's
// commit slept in SQLite's busy handler, whose steps (1, 2, 5, 10, 15, 20, 25 ms) overshot the lock's
// release: each restart stopped every verify for 36-83 ms, every 3 s at 1,000 verifies a second, and made
// most of the fixed-rate p99. The RESTART stays as the fallback when the log is still past the limit a turn
// after asking (another process commits to the file too, or the store thread had no commit to do it in).
//
// The thread runs at the lowest CPU priority (nice 19, Linux): its copies and fsyncs can wait, the event
// loop and the store thread cannot. On two cores, while it copied a second's worth of log (50-70 ms), the
// event loop stalled 5-40 ms.
//
// Before it asks for the restart it writes the database file and the log to disk itself (fdatasync). A
// passive checkpoint syncs the database file only when no commit landed while it copied, which under steady
// commits is never: the pages it copied stay dirty in the page cache (up to 43 MB at 3,000 verifies a second,
// /proc/meminfo), until the store thread's catch-up, the first checkpoint with no writer beside it, syncs
// them all while the commits wait. That catch-up took 35-84 ms on a 2-core machine (about 5 ms of it on a
// core: the rest waiting for the disk); with the thread's flush first, 0.1-16.5 ms, the flush itself taking
// 6-61 ms here, off every request's path (2026-11-28, bench/README.md, seventeenth pass).
// The worker loads the same better-sqlite3 (one SQLite library in the process, so its locks are seen).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { walFlushDuration } from '../metrics.js';
import { WAL_SIZE_LIMIT_BYTES } from './sqlite-writes.js';

/**
 * How often the thread copies the log into the database. Each copy ends in fsyncs that slow the commits and
 * the event loop beside it (on two cores): every second, a second's worth of log (about 60 MB at 1,000
 * verifies a second) stalled answers 12-20 ms, and the fixed-rate p99 was 15, 16 and 27 ms in three scratch
 * runs; every 250 ms, 8, 9 and 26 ms (and 10, 6 and 27), the same throughput. 100 ms gave no more.
 */
export const CHECKPOINT_EVERY_MS = 250;

/** How long stop() waits for the thread to close its connection before ending it (a pass's copy and fsyncs take tens of ms). */
const STOP_WAIT_MS = 5_000;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.module);
try {
  // This thread only (Linux: a thread's id is a pid to setpriority); elsewhere it keeps the process's priority.
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, 19);
} catch {}
let db = null;
let pageSize = null;
let asked = false;
// Writes the database file and the log to disk (what a checkpoint with no commit beside it would sync) and
// tells the event loop how long it took. Only a head start for the store thread's catch-up, which syncs
// whatever is left: a file it cannot open or sync never holds the restart back.
function flush() {
  const started = performance.now();
  for (const file of [workerData.filename, workerData.filename + '-wal']) {
    try {
      const fd = fs.openSync(file, 'r');
      try { fs.fdatasyncSync(fd); } finally { fs.closeSync(fd); }
    } catch {}
  }
  parentPort.postMessage({ flushedMs: performance.now() - started });
}
const timer = setInterval(() => {
  try {
    db ??= new Database(workerData.filename, { fileMustExist: true, timeout: 0 });
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    pageSize ??= db.pragma('page_size', { simple: true });
    if (log * pageSize <= workerData.limitBytes) {
      asked = false;
    } else if (!asked) {
      // The pages copied so far go to disk first, then a second pass copies what was committed meanwhile: the
      // store thread is left little to copy and little to sync.
      flush();
      db.pragma('wal_checkpoint(PASSIVE)');
      Atomics.store(workerData.restart, 0, 1); // the store thread's next commit starts the log again
      asked = true;
    } else {
      // Still past the limit a turn after asking: with no busy wait (timeout 0) a RESTART takes the write lock
      // only when no commit holds it, copies the frames committed since and leaves the log to be restarted by
      // the next commit. A flush and a second passive checkpoint first leave it less to copy and to sync.
      flush();
      db.pragma('wal_checkpoint(PASSIVE)');
      db.pragma('wal_checkpoint(RESTART)');
      asked = false;
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

/**
 * A flag the checkpoint thread raises when the log is past its limit and the store thread lowers when it has
 * copied the rest of the log before a commit (restartWanted): one Int32 in shared memory, read with Atomics.
 */
export type RestartFlag = Int32Array;

export function restartFlag(): RestartFlag {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Whether the checkpoint thread asked for the log to start again; lowers the flag. */
export function restartWanted(flag: RestartFlag): boolean {
  return Atomics.exchange(flag, 0, 0) === 1;
}

/**
 * `restart`: shared with the store thread (sqlite-thread.ts); `limitBytes`: WAL_SIZE_LIMIT_BYTES unless set
 * (a test's, to see restarts without writing 512 MB).
 */
export function startCheckpoints(filename: string, restart: RestartFlag = restartFlag(), limitBytes = WAL_SIZE_LIMIT_BYTES): Checkpoints {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { filename, module, everyMs: CHECKPOINT_EVERY_MS, limitBytes, restart },
  });
  worker.unref();
  worker.on('error', () => {}); // a failed checkpoint thread leaves the WAL to grow until the last connection closes
  // Once gone (stopped, or failed), it answers nothing: stop() must not wait for it (the service's stop would).
  let exited = false;
  worker.once('exit', () => {
    exited = true;
  });
  worker.on('message', (message: unknown) => {
    const ms = (message as { flushedMs?: unknown } | null)?.flushedMs;
    if (typeof ms === 'number') walFlushDuration.observe(ms / 1000);
  });
  return {
    async stop() {
      if (exited) return;
      let timer: NodeJS.Timeout | undefined;
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: unknown) => {
          if (message === 'closed') resolve();
        });
        worker.once('exit', () => resolve());
        // A pass still in its fsyncs finishes first; past this the thread is ended where it is.
        timer = setTimeout(resolve, STOP_WAIT_MS);
      });
      worker.postMessage('stop');
      await closed;
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
