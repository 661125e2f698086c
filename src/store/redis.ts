// The Redis connection shared limits and quota counters use (REDIS_URL). Every wait is bounded: a command
// fails after REDIS_TIMEOUT_MS, a command sent while the connection is down fails at once (no offline
// queue), and the client reconnects by itself in the background. Its callers fall back when a command
// fails; they never make a request wait for Redis to come back.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisSettings {
  url: string;
  /** Longest wait for one command, and for a connection to open. */
  timeoutMs: number;
}

/** Reconnection delays grow to this. */
const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * Opens the connection. ioredis is loaded here, not with this module: a service without REDIS_URL never
 * loads it (about 60 ms of a start).
 */
export async function connectRedis(settings: RedisSettings, log: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(settings.url, {
    enableOfflineQueue: false,
    commandTimeout: settings.timeoutMs,
    connectTimeout: Math.max(settings.timeoutMs, 1000),
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 200, MAX_RECONNECT_DELAY_MS),
    // A worker of `serve` has nothing to say to Redis until the first request.
    lazyConnect: false,
  });
  // Without a listener ioredis would print every failed reconnection; the outage is logged once by limits.ts.
  redis.on('error', (error: Error) => log.debug({ reason: error.message }, 'redis connection error'));
  return redis;
}

/** Resolves true once the connection is ready, false after `timeoutMs` without it. */
export function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/** Closes the connection; a connection that is down is simply dropped. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
