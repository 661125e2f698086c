// A graceful stop on SIGTERM or SIGINT: readiness turns 503 (GET /readyz), the listener stops accepting,
// requests in flight finish (their events are committed before they are answered, event-writer.ts),
// kept-alive connections close as their last answer goes out, requests whose client hung up are still
// handled to the end (their events committed: Service.inFlight), then the service closes (pending event
// commits flushed, the database closed) and the process exits 0. Past SHUTDOWN_TIMEOUT_MS the remaining
// connections are cut, the service is still closed, and the process exits 1. A second signal during the
// stop ends the process at once (the default action).
import type { Server } from 'node:http';
import type { Service } from './compose.js';

/** How often idle kept-alive connections are closed while waiting for requests in flight. */
const IDLE_SWEEP_MS = 100;

export interface StopOptions {
  service: Service;
  /** The main server first; the metrics server, when there is one. */
  servers: Server[];
  timeoutMs: number;
  /** Other work to stop first (background jobs). */
  beforeClose?: () => void;
  exit?: (code: number) => void;
}

export function stopOnSignals(options: StopOptions): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void stop(options, signal);
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

export async function stop(options: StopOptions, signal: NodeJS.Signals | 'stop'): Promise<void> {
  const { service, servers, timeoutMs } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const started = performance.now();
  const log = service.log;
  log.info({ signal, timeoutMs }, 'stopping: readiness is 503, finishing requests in flight');
  service.readiness.markStopping();
  options.beforeClose?.();
  const [main] = servers;
  const drained = main ? drain(main, timeoutMs) : Promise.resolve(true);
  for (const other of servers.slice(1)) other.close();
  const clean = (await drained) && (await settled(service, timeoutMs - (performance.now() - started)));
  if (!clean) log.warn({ timeoutMs }, 'stopping: requests still in flight after SHUTDOWN_TIMEOUT_MS were cut');
  try {
    await service.close();
  } catch (error) {
    log.error({ err: error }, 'stopping: closing the service failed');
    exit(1);
    return;
  }
  for (const other of servers.slice(1)) other.closeAllConnections();
  log.info({ ms: Math.round(performance.now() - started), clean }, 'stopped: events committed, database closed');
  exit(clean ? 0 : 1);
}

/** Waits, at most `timeoutMs`, for the requests still being handled after their connections closed. */
async function settled(service: Service, timeoutMs: number): Promise<boolean> {
  if (service.inFlight.count === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
  });
  try {
    return await Promise.race([service.inFlight.idle().then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops accepting and waits for the connections to end; true when they all did within the timeout. */
function drain(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    // From now on every answer closes its connection, so a kept-alive client does not send another request.
    server.on('request', (_request, response) => {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    });
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      clearInterval(sweep);
      server.closeAllConnections();
      resolve(false);
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve(true);
    });
    server.closeIdleConnections();
  });
}
