// WORKERS=N: `serve` runs N worker processes (node:cluster) that share one port; this, the primary,
// listens on nothing itself. It brings the database up to date before any worker starts, creates the
// demo project of a fresh install once the first worker listens, runs the background retention, and
// replaces a worker that dies. Limits stay global: through Redis when REDIS_URL is set, otherwise through
// the limiter the primary holds for every worker (rate-limiter-flexible's RateLimiterClusterMaster). On
// SIGINT or SIGTERM it passes the signal on, waits for every worker to finish, then exits; SIGHUP (reload
// the policies and the data lists) it passes on to every worker, and after a DATA_UPDATE_INTERVAL run that
// installed a list (src/cli/data-updates.ts).
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { summarizeNetwork } from '../network/summary.js';
import { startRetention } from '../service/retention.js';
import { openDatabase } from '../store/database.js';
import { startDataUpdates } from './data-updates.js';
import { createLogger } from './logger.js';
import { ensureDemoProject, printCreated } from './projects.js';
import { databaseName } from './with-store.js';

const RETENTION_INTERVAL_MS = 10 * 60_000;
/** A worker that dies is replaced after this delay (a crash loop then costs little). */
const RESTART_DELAY_MS = 1000;

export async function runPrimary(config: Config, hostAndPort: (host: string, port: number) => string): Promise<void> {
  const log = createLogger(config);
  log.info({ database: databaseName(config.databaseUrl) }, `using ${databaseName(config.databaseUrl)}`);
  const store = await openDatabase(config.databaseUrl, { log });
  await store.migrate();
  // Created once, before the workers: it answers their RateLimiterCluster requests.
  if (!config.redis) new RateLimiterClusterMaster();
  let stopping = false;
  let started = false;
  const fork = (): Worker => cluster.fork();
  for (let i = 0; i < config.workers; i += 1) fork();
  // SIGHUP goes to listening workers only: one still starting would die of it (no handler yet), and loads the policies anyway.
  const listening = new Set<Worker>();
  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('exit', (worker) => listening.delete(worker));
  process.on('SIGHUP', () => {
    for (const worker of listening) worker.process.kill('SIGHUP');
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!started) {
      // A worker that cannot start (port taken, bad configuration: it said why) would fail again: stop.
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      void store.close().finally(() => process.exit(code || 1));
      return;
    }
    log.error({ worker: worker.process.pid, code, signal }, 'worker exited; starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS).unref();
  });

  const [, address] = (await once(cluster, 'listening')) as [Worker, { address: string | null; port: number }];
  started = true;
  const base = `http://${hostAndPort(config.host, address.port)}`;
  log.info(
    { base, workers: config.workers, limits: config.redis ? 'redis' : 'cluster primary', network: summarizeNetwork(config.network) },
    'email-trust is listening',
  );
  const demo = await ensureDemoProject(store);
  const retention = startRetention(store, { retentionDays: config.velocityRetentionDays, intervalMs: RETENTION_INTERVAL_MS, now: Date.now, log });
  // DATA_UPDATE_INTERVAL: the primary updates, and every listening worker reloads (as on SIGHUP, the policies too).
  const updates = startDataUpdates({
    intervalSeconds: config.data.updateIntervalSeconds,
    log,
    reload: async () => {
      for (const worker of listening) worker.process.kill('SIGHUP');
    },
  });

  const stop = async (signal: NodeJS.Signals) => {
    stopping = true;
    log.info({ signal }, 'stopping: waiting for the workers to finish');
    retention.stop();
    updates.stop();
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    await Promise.all(
      workers.map((worker) => {
        const exited = once(worker, 'exit');
        worker.process.kill(signal);
        return exited;
      }),
    );
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // Printed last, as serve.ts does: a SIGTERM sent on seeing the curl line must find the handlers in place.
  if (demo) printCreated(demo, base);
}
