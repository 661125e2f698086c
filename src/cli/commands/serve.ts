// `email-trust serve`: binds the port first (a taken port stops the start before anything is made),
// then creates the demo project of a fresh install and prints its keys, then serves until SIGINT or SIGTERM.
// SIGHUP reloads the policies (folders and every project's stored policy) and the data lists without a restart;
// DATA_UPDATE_INTERVAL runs `data update` from here and reloads what it installed (src/cli/data-updates.ts).
import cluster from 'node:cluster';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { probeBlocklists } from '../../../plugins/blocklist-probe.js';
import { registry } from '../../../plugins/index.js';
import { ConfigError, loadConfig } from '../../config.js';
import { createMetricsServer } from '../../http/metrics.js';
import { createHttpServer } from '../../http/server.js';
import { summarizeNetwork } from '../../network/summary.js';
import { staleAdvice, staleLists } from '../../service/data-age.js';
import { startDataReload } from '../../service/data-reload.js';
import { startRetention } from '../../service/retention.js';
import { runPrimary } from '../cluster.js';
import { composeService, type Service } from '../compose.js';
import { configHelp } from '../config-variables.js';
import { startDataUpdates } from '../data-updates.js';
import { ensureDemoProject, printCreated } from '../projects.js';
import { missingServeFlags } from '../serve-flags.js';
import { stopOnSignals } from '../shutdown.js';
import { databaseName } from '../with-store.js';

const RETENTION_INTERVAL_MS = 10 * 60_000;

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP service (its environment variables: serve --help); SIGHUP reloads the policies and the data lists')
    .addHelpText('after', () => configHelp())
    .action(serve);
}

async function serve(): Promise<void> {
  const config = loadConfig();
  // WORKERS > 1: this process starts the workers (cluster.ts), each of which runs the rest of serve().
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config, hostAndPort);
  const service = await composeService(config);
  const server = await listen(service);
  const dataReload = startDataReload(registry, { intervalSeconds: config.data.reloadIntervalSeconds, log: service.log });
  process.on('SIGHUP', () => {
    service.reloadPolicies().catch((error: unknown) => service.log.error({ err: error }, 'SIGHUP: policies not reloaded; the loaded ones stay in use'));
    void dataReload.reload();
  });
  const metricsServer = await listenMetrics(service).catch(async (error: unknown) => {
    server.close();
    await service.close();
    throw error;
  });
  const servers = [server, ...(metricsServer ? [metricsServer] : [])];
  const base = `http://${hostAndPort(config.host, (server.address() as AddressInfo).port)}`;
  // A worker serves; its primary makes the demo project and runs the retention. A worker's handlers come before
  // it says it listens: its primary passes a SIGTERM on at once, and a worker caught between the two was ended
  // by the signal's default action, its last log lines with it.
  if (cluster.isWorker) {
    stopOnSignals({ service, servers, timeoutMs: config.ops.shutdownTimeoutMs });
    sayListening(service, base);
    if (cluster.worker?.id === 1) {
      reportBlocklists(service);
      warnStaleData(service);
    }
    return;
  }
  sayListening(service, base);
  reportBlocklists(service);
  warnStaleData(service);
  const demo = await ensureDemoProject(service.store).catch(async (error: unknown) => {
    server.close();
    metricsServer?.close();
    await service.close();
    throw error;
  });
  const retention = startRetention(service.store, {
    retentionDays: config.velocityRetentionDays,
    intervalMs: RETENTION_INTERVAL_MS,
    now: Date.now,
    log: service.log,
  });
  // With WORKERS, the primary runs the updates (cluster.ts); here this process is the only one.
  const updates = startDataUpdates({ intervalSeconds: config.data.updateIntervalSeconds, log: service.log, reload: () => dataReload.reload() });
  stopOnSignals({
    service,
    servers,
    timeoutMs: config.ops.shutdownTimeoutMs,
    beforeClose: () => {
      retention.stop();
      updates.stop();
    },
  });
  // Printed last: whoever waits for the curl line (a script, a test) may stop the service as soon as it sees
  // it. Printed before the handlers, a SIGTERM sent at once ended the process by the signal's default action
  // (retention's first pass runs a statement in between), with no stop and no exit code.
  if (demo) printCreated(demo, base);
}

/** The "listening" line and, when node lacks SERVE_NODE_FLAGS, a line naming them (once per start: a cluster's workers share their primary's flags, and the first worker says it). */
function sayListening(service: Service, base: string): void {
  const { config } = service;
  const worker = cluster.isWorker ? { worker: cluster.worker?.id, pid: process.pid } : {};
  service.log.info(
    { base, database: databaseName(config.databaseUrl), policies: service.policies.names(), network: summarizeNetwork(config.network), ...worker },
    'email-trust is listening',
  );
  const missing = missingServeFlags();
  if (missing.length > 0 && (!cluster.isWorker || cluster.worker?.id === 1)) {
    service.log.info(
      { missing_node_flags: missing },
      `node was started without ${missing.join(' ')}: \`npm start\`, \`npx email-trust serve\` and the container image start the service with it (docs/operations.md, "V8's background threads", says what it changes)`,
    );
  }
}

/** One warning at start when a data list is past its maximum age (DATA_AGE_CHECK; /readyz reports it too). */
function warnStaleData(service: Service): void {
  if (!service.config.data.ageCheck) return;
  const stale = staleLists(registry, Date.now());
  if (stale.length > 0) service.log.warn({ stale }, staleAdvice(stale));
}

/**
 * The configured DNS blocklists asked about their test entries, in the background (no request waits): one
 * info line when every zone answers as a zone should, one warning per zone that does not, saying what to do.
 */
function reportBlocklists(service: Service): void {
  const { enabled, dnsblDomainZones, dnsblIpZones } = service.config.network;
  if (!enabled || dnsblDomainZones.length + dnsblIpZones.length === 0) return;
  probeBlocklists(service.network.forRequest({ persist: false, now: Date.now() }).blocklists).then(
    (probes) => {
      const bad = probes.filter((probe) => probe.health !== 'ok');
      for (const probe of bad) service.log.warn({ zone: probe.zone, kind: probe.kind, health: probe.health }, `DNS blocklist ${probe.zone}: ${probe.advice}`);
      if (bad.length === 0) service.log.info({ zones: probes.map((probe) => probe.zone) }, 'DNS blocklists answer their test entries');
    },
    (error: unknown) => service.log.warn({ err: error }, 'DNS blocklists: the start-up probe failed; their facts stay unknown until the zones answer'),
  );
}

/** With METRICS_PORT set, GET /metrics is served there (on HOST), and not on the main port. */
async function listenMetrics(service: Service): Promise<Server | null> {
  const { host, ops } = service.config;
  if (ops.metricsPort === null) return null;
  const server = createMetricsServer({ token: ops.metricsToken }).listen(ops.metricsPort, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError('METRICS_PORT', `${hostAndPort(host, ops.metricsPort)} is already in use by another process; choose another METRICS_PORT`);
    }
    throw error;
  }
  service.log.info({ metrics: `http://${hostAndPort(host, (server.address() as AddressInfo).port)}/metrics` }, 'metrics are served on their own port');
  return server;
}

/** Listens on HOST:PORT; when that fails, closes the service first, so the process can end. */
async function listen(service: Service): Promise<Server> {
  const { host, port } = service.config;
  const server = createHttpServer(service.app, service.config.server, service.log).listen(port, host);
  try {
    await once(server, 'listening');
    return server;
  } catch (error) {
    // A cluster worker's server may report the failure twice; and its channel to the primary would keep it alive.
    server.on('error', () => undefined);
    await service.close();
    cluster.worker?.disconnect();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError('PORT', `${hostAndPort(host, port)} is already in use by another process; stop that process or start with another PORT`);
    }
    throw error;
  }
}

function hostAndPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
