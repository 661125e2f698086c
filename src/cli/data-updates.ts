// `serve` with DATA_UPDATE_INTERVAL (issue 51): `email-trust data update --json` run as a child process soon
// after start and then every interval, one run at a time, and the lists reloaded when it installed one. A
// child process, not a call in this one: the downloads' parsing, the disposable guard and their memory stay
// out of the process that answers, so no request waits on an update. Several instances on one DATA_DIR may
// all run it: the update's lock (src/data-lists.ts) lets one install at a time, and the others' runs find it
// held and skip (docs/decisions/0091).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { STALE_LOCK_MS } from '../data-lists.js';
import { packageRoot } from '../paths.js';
import type { UpdateResult } from '../service/data-update.js';

/** The first run waits this long after start, so that start-up and the first answers do not share the CPU with it. */
const FIRST_RUN_DELAY_MS = 2_000;
/** The child's JSON report is a few KB; more is kept no further. */
const MAX_REPORT_BYTES = 1024 * 1024;

export interface DataUpdates {
  stop(): void;
}

export interface DataUpdateOptions {
  intervalSeconds: number;
  log: Logger;
  /** Called after a run that installed a list (the lists read again: this process's, or the workers'). */
  reload: () => Promise<void>;
  /** A run still going after this is killed (default: when its lock would count as left by a dead update). */
  deadlineMs?: number;
  firstRunDelayMs?: number;
}

/** Runs the updates every `intervalSeconds` (0: never); the timers never keep the process alive. */
export function startDataUpdates(options: DataUpdateOptions): DataUpdates {
  const { intervalSeconds, log } = options;
  if (intervalSeconds <= 0) return { stop: () => {} };
  let timer: NodeJS.Timeout | null = null;
  let child: ChildProcess | null = null;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => void run().finally(() => schedule(intervalSeconds * 1000)), ms);
    timer.unref();
  };
  const run = async () => {
    const outcome = await runUpdate(options.deadlineMs ?? STALE_LOCK_MS, (started) => {
      child = started;
    });
    child = null;
    if (stopped) return;
    if (outcome.kind === 'report') {
      const installed = outcome.results.filter((r) => r.outcome === 'installed').map((r) => `${r.plugin}/${r.list}`);
      const refused = outcome.results.filter((r) => r.outcome === 'refused').map((r) => ({ list: `${r.plugin}/${r.list}`, reason: r.reason }));
      const skipped = outcome.results.filter((r) => r.outcome === 'skipped').length;
      const text = `data update: ${installed.length} installed, ${refused.length} refused (each keeps its last good list), ${skipped} without an upstream`;
      if (refused.length > 0) log.warn({ installed, refused, skipped }, text);
      else log.info({ installed, skipped }, text);
      if (installed.length > 0) await options.reload();
    } else if (outcome.kind === 'busy') {
      log.info({ reason: outcome.message }, 'data update skipped: another instance is updating this DATA_DIR');
    } else {
      log.warn({ reason: outcome.message }, `data update failed: ${outcome.message}; the lists loaded stay in use, the next run is in ${intervalSeconds} s`);
    }
  };
  schedule(options.firstRunDelayMs ?? FIRST_RUN_DELAY_MS);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      child?.kill('SIGTERM');
    },
  };
}

type Outcome = { kind: 'report'; results: UpdateResult[] } | { kind: 'busy'; message: string } | { kind: 'failed'; message: string };

/** One `data update --json` in a child process with this process's environment (DATA_DIR, DATA_SOURCES_URL, …). */
function runUpdate(deadlineMs: number, started: (child: ChildProcess) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(packageRoot, 'bin/email-trust.js'), 'data', 'update', '--json'], {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started(child);
    let report = '';
    let errors = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      if (report.length < MAX_REPORT_BYTES) report += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString('utf8')).slice(-4096);
    });
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, deadlineMs);
    deadline.unref();
    child.once('error', (error) => {
      clearTimeout(deadline);
      resolve({ kind: 'failed', message: `could not start \`email-trust data update\`: ${error.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      const lastError = errors.trim().split('\n').pop() ?? '';
      if (timedOut) return resolve({ kind: 'failed', message: `it did not end within ${Math.round(deadlineMs / 1000)} s and was stopped` });
      // Exit 1 with a report: some lists were refused, the others installed.
      try {
        const results = JSON.parse(report) as UpdateResult[];
        if (Array.isArray(results)) return resolve({ kind: 'report', results });
      } catch {
        // no report: the error line says why
      }
      if (lastError.includes('another `data update`')) return resolve({ kind: 'busy', message: lastError.replace(/^error: /, '') });
      resolve({ kind: 'failed', message: lastError.replace(/^error: /, '') || `it exited with ${signal ?? code}` });
    });
  });
}
