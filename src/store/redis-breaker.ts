// A circuit breaker on the Redis connection (issue 46). A Redis that holds its connections but never answers
// (frozen, or behind a partition) made every request wait out REDIS_TIMEOUT_MS once or twice before falling
// back: verify's p50 went from 2 to 500 ms. After one failed command the breaker opens and every caller
// decides without Redis at once, sending it nothing; one probe a second (PING, bounded by REDIS_TIMEOUT_MS)
// runs in the background and closes the breaker when Redis answers again.
import type { Redis } from 'ioredis';

/** How often an open breaker asks Redis whether it answers again. */
export const PROBE_INTERVAL_MS = 1000;

export type BreakerChange = { open: true; reason: string } | { open: false };

export interface RedisBreaker {
  /** The connection while Redis answers; null while the breaker is open: decide without Redis, now. */
  redis(): Redis | null;
  /** A command failed (timed out, connection lost, error reply): the breaker opens until a probe answers. */
  failed(error: unknown): void;
  /** When the breaker last closed after being open (Date.now ms); -Infinity while it never was. */
  closedAt(): number;
  /** Told when the breaker opens and when it closes. */
  onChange(listener: (change: BreakerChange) => void): void;
  /** Stops probing (the connection is being closed). */
  stop(): void;
}

export interface BreakerOptions {
  /** Open from the start (Redis did not answer when the service started). */
  open?: boolean;
  probeIntervalMs?: number;
}

export function createRedisBreaker(connection: Redis, options: BreakerOptions = {}): RedisBreaker {
  const probeMs = options.probeIntervalMs ?? PROBE_INTERVAL_MS;
  const listeners = new Set<(change: BreakerChange) => void>();
  let open = false;
  let closedAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | null = null;
  let probing = false;
  let stopped = false;

  const tell = (change: BreakerChange) => {
    for (const listener of listeners) listener(change);
  };

  const trip = (reason: string) => {
    if (stopped) return;
    if (!timer) {
      timer = setInterval(() => void probe(), probeMs);
      timer.unref();
    }
    if (open) return;
    open = true;
    tell({ open: true, reason });
  };

  async function probe(): Promise<void> {
    // A connection that is not ready fails at once (no offline queue): ioredis reconnects by itself, and 'ready' probes.
    if (!open || probing || stopped || connection.status !== 'ready') return;
    probing = true;
    try {
      await connection.ping();
    } catch {
      return; // still not answering: the next probe in a second
    } finally {
      probing = false;
    }
    if (!open || stopped) return;
    open = false;
    closedAt = Date.now();
    if (timer) clearInterval(timer);
    timer = null;
    tell({ open: false });
  }

  connection.on('close', () => trip('the connection to Redis closed'));
  connection.on('ready', () => void probe());
  if (options.open === true) {
    open = true;
    trip('Redis did not answer at start');
  }

  return {
    redis: () => {
      if (open) return null;
      if (connection.status === 'ready') return connection;
      trip(`the connection to Redis is ${connection.status}`);
      return null;
    },
    failed: (error) => trip(error instanceof Error ? error.message : String(error)),
    closedAt: () => closedAt,
    onChange: (listener) => {
      listeners.add(listener);
    },
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
