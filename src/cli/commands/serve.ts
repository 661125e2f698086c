// `email-trust serve`: creates the demo project of a fresh install, listens, prints the demo keys and
// serves until SIGINT or SIGTERM.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { type Retention, startRetention } from '../../service/retention.js';
import { composeService, type Service } from '../compose.js';
import { ensureDemoProject, printCreated } from '../projects.js';

const RETENTION_INTERVAL_MS = 10 * 60_000;

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP service (env: PORT, HOST, DATABASE_URL, POLICIES_DIR, LOG_LEVEL, TRUST_PROXY, RATE_LIMIT_*, FINGERPRINT_KEYS)')
    .action(serve);
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const service = await composeService(config);
  const demo = await ensureDemoProject(service.store);
  const retention = startRetention(service.store, {
    retentionDays: config.velocityRetentionDays,
    intervalMs: RETENTION_INTERVAL_MS,
    now: Date.now,
    log: service.log,
  });
  const server = service.app.listen(config.port, config.host);
  await new Promise<void>((done, fail) => server.once('listening', done).once('error', fail));
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  service.log.info({ base, database: config.databaseUrl, policies: service.policies.names() }, 'email-trust is listening');
  if (demo) printCreated(demo, base);
  stopOnSignals(service, server, retention);
}

function stopOnSignals(service: Service, server: Server, retention: Retention): void {
  const stop = async (signal: NodeJS.Signals) => {
    service.log.info({ signal }, 'stopping: finishing requests in flight');
    retention.stop();
    server.close();
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
