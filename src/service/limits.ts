// Rate limits shared by every instance: with REDIS_URL each limit lives in Redis (rate-limiter-flexible's
// RateLimiterRedis), so N instances behind a load balancer admit what one would. Without Redis, a worker of
// `serve` with WORKERS > 1 asks the cluster's primary process (RateLimiterCluster), so the limits stay global
// across the workers; a lone process counts in memory.
//
// Every limit also counts in this process's memory (RateLimiterMemory), always, and the larger of the two
// counts decides: when Redis goes away the memory count goes on from where it was, and when Redis comes back
// empty or behind (restarted, flushed, or counted nothing while it was away) the memory count still holds, so
// an outage or a recovery gives a client no extra tries (docs/decisions/0004). For a window longer
// than a second (failed authentications), Redis is raised to the memory counts once it answers again, so that
// the other instances see what it lost or missed too.
//
// Redis's connection has a circuit breaker (store/redis-breaker.ts): while it is open, the memory count
// decides at once and Redis is sent nothing. Each decision taken without Redis (or the cluster primary) is
// counted in `fallbacks`, and a warning is logged once per outage.
//
// Observers: onLimitEvent(listener) is told of every rate-limit refusal, every fallback decision and every
// quota refusal (quota.ts), for metrics; counters() returns the same as running totals.
import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createRedisBreaker, PROBE_INTERVAL_MS, type RedisBreaker } from '../store/redis-breaker.js';

export type LimitName = 'verify' | 'ip' | 'intelligence' | 'fingerprint' | 'feedback' | 'failed_auth';

export type LimitEvent =
  /** A request refused with 429 by a rate limit. */
  | { type: 'rate_limited'; limit: LimitName }
  /** A limit decided by this process alone because Redis (or the cluster primary) did not answer. */
  | { type: 'fallback'; limit: LimitName | 'quota' }
  /** A request refused with 429 because its project's monthly quota is used up. */
  | { type: 'quota_exceeded'; projectId: string };

export interface LimitCounters {
  rateLimited: Record<LimitName, number>;
  fallbacks: number;
  quotaExceeded: number;
}

export interface Limiter {
  /** Takes one point of `key`: null when admitted, else the ms before a point frees. */
  take(key: string): Promise<number | null>;
}

export interface Limits {
  /** `points` per `durationSeconds` per key; one limiter per name. */
  limiter(name: LimitName, points: number, durationSeconds: number): Limiter;
  /** REDIS_URL is set. */
  readonly hasRedis: boolean;
  /** The Redis connection while Redis answers: null without REDIS_URL, and while its breaker is open. */
  redis(): Redis | null;
  /** A Redis command failed (quota.ts's too): nothing is sent to Redis until its breaker's probe answers. */
  redisFailed(error: unknown): void;
  /** Key prefix of everything this service stores in Redis. */
  readonly prefix: string;
  /** Records that a decision was taken without Redis: counted, and a warning the first time in an outage. */
  fellBack(what: LimitName | 'quota', error?: unknown): void;
  emit(event: LimitEvent): void;
  onLimitEvent(listener: (event: LimitEvent) => void): () => void;
  counters(): LimitCounters;
  /** Stops the breaker's probe (before the connection closes). */
  close(): void;
}

export interface LimitsOptions {
  redis: Redis | null;
  prefix: string;
  log: Logger;
  /** Wait for the cluster primary's answer at most this long. */
  timeoutMs: number;
  /** Redis did not answer at start (already logged): the breaker starts open, and its first fallbacks are not news. */
  redisDownAtStart?: boolean;
}

/** Keys a limit remembers for raising in Redis after an outage; past it a new key is decided by the larger count only. */
const MAX_REMEMBERED_KEYS = 10_000;

/** The limiter's answer either way: rate-limiter-flexible rejects with a RateLimiterRes when the points are used up. */
async function outcome(call: Promise<RateLimiterRes>): Promise<RateLimiterRes> {
  try {
    return await call;
  } catch (caught) {
    if (caught instanceof RateLimiterRes) return caught;
    throw caught;
  }
}

/** The count that decides: the larger one (and, of equal ones, the one that frees later). */
function larger(a: RateLimiterRes | null, b: RateLimiterRes | null | undefined): RateLimiterRes | null {
  if (!a || !b) return a ?? b ?? null;
  if (a.consumedPoints !== b.consumedPoints) return a.consumedPoints > b.consumedPoints ? a : b;
  return a.msBeforeNext >= b.msBeforeNext ? a : b;
}

export function createLimits(options: LimitsOptions): Limits {
  const { prefix, log } = options;
  const connection = options.redis;
  const breaker: RedisBreaker | null = connection ? createRedisBreaker(connection, { open: options.redisDownAtStart === true }) : null;
  const listeners = new Set<(event: LimitEvent) => void>();
  const counts: LimitCounters = {
    rateLimited: { verify: 0, ip: 0, intelligence: 0, fingerprint: 0, feedback: 0, failed_auth: 0 },
    fallbacks: 0,
    quotaExceeded: 0,
  };
  let outage = options.redisDownAtStart === true;

  const emit = (event: LimitEvent) => {
    if (event.type === 'rate_limited') counts.rateLimited[event.limit] += 1;
    else if (event.type === 'fallback') counts.fallbacks += 1;
    else counts.quotaExceeded += 1;
    for (const listener of listeners) listener(event);
  };

  const announce = (reason: string, what?: LimitName | 'quota') => {
    if (outage) return;
    outage = true;
    const shared = connection ? 'Redis' : 'the cluster primary';
    log.warn({ ...(what ? { limit: what } : {}), reason }, `${shared} does not answer: rate limits and quota are counted by this process alone until it does`);
  };
  /** Each limiter's catch-up of Redis, run when the breaker closes. */
  const catchUps: Array<() => Promise<void>> = [];
  breaker?.onChange((change) => {
    if (change.open) return announce(change.reason);
    for (const catchUp of catchUps) void catchUp();
    if (!outage) return;
    outage = false;
    log.info('Redis answers again: rate limits and quota are shared again');
  });

  const fellBack = (what: LimitName | 'quota', error?: unknown) => {
    if (error !== undefined) announce(error instanceof Error ? error.message : String(error), what);
    emit({ type: 'fallback', limit: what });
  };

  const clusterWorker = !connection && cluster.isWorker;
  const made = new Map<LimitName, Limiter>();

  function build(name: LimitName, points: number, duration: number): Limiter {
    const keyPrefix = `${prefix}limit:${name}`;
    const local = new RateLimiterMemory({ points, duration, keyPrefix });
    const redisLimiter = connection ? new RateLimiterRedis({ storeClient: connection, points, duration, keyPrefix, rejectIfRedisNotReady: true }) : null;
    const shared = redisLimiter ?? (clusterWorker ? new RateLimiterCluster({ points, duration, keyPrefix, timeoutMs: options.timeoutMs }) : null);
    /**
     * The keys this process counted and when their memory windows end, for a window longer than the breaker's
     * probe interval (failed authentications): what Redis may have lost or missed while it was away, raised there
     * when it answers again. A shorter window has ended by then.
     */
    const remembered = redisLimiter && duration * 1000 > PROBE_INTERVAL_MS ? new Map<string, number>() : null;
    const remember = (key: string, res: RateLimiterRes) => {
      if (!remembered) return;
      const now = Date.now();
      // Oldest first (a key counted again moves to the end): the ended windows are at the front.
      for (const [k, until] of remembered) {
        if (until > now) break;
        remembered.delete(k);
      }
      remembered.delete(key);
      if (remembered.size < MAX_REMEMBERED_KEYS) remembered.set(key, now + res.msBeforeNext);
    };

    /** The shared limiter's answer; undefined when it was not asked (breaker open) or did not answer: memory decides. */
    const ask = async (call: (limiter: RateLimiterRedis | RateLimiterCluster) => Promise<RateLimiterRes | null>) => {
      if (!shared) return undefined;
      if (redisLimiter && !breaker?.redis()) {
        fellBack(name);
        return undefined;
      }
      try {
        return await call(shared);
      } catch (caught) {
        if (caught instanceof RateLimiterRes) return caught;
        if (redisLimiter) breaker?.failed(caught);
        fellBack(name, caught);
        return undefined;
      }
    };

    if (remembered && redisLimiter) {
      catchUps.push(async () => {
        for (const [key, until] of [...remembered]) {
          if (until <= Date.now()) {
            remembered.delete(key);
            continue;
          }
          const mine = await local.get(key);
          if (!mine || !breaker?.redis()) continue;
          try {
            const theirs = await redisLimiter.get(key);
            const behind = mine.consumedPoints - (theirs?.consumedPoints ?? 0);
            if (behind > 0) await redisLimiter.penalty(key, behind);
          } catch (error) {
            breaker?.failed(error); // the rest at the next recovery; meanwhile the larger count decides here
            return;
          }
        }
      });
    }

    return {
      async take(key) {
        const [mine, theirs] = await Promise.all([outcome(local.consume(key)), ask((limiter) => outcome(limiter.consume(key)))]);
        remember(key, mine);
        const decisive = larger(mine, theirs);
        if (!decisive || decisive.consumedPoints <= points) return null;
        emit({ type: 'rate_limited', limit: name });
        return decisive.msBeforeNext;
      },
    };
  }

  return {
    prefix,
    hasRedis: connection !== null,
    limiter(name, points, duration) {
      let limiter = made.get(name);
      if (!limiter) {
        limiter = build(name, points, duration);
        made.set(name, limiter);
      }
      return limiter;
    },
    redis: () => breaker?.redis() ?? null,
    redisFailed: (error) => breaker?.failed(error),
    fellBack,
    emit,
    onLimitEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    counters: () => structuredClone(counts),
    close: () => breaker?.stop(),
  };
}
