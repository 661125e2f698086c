// Rate limits shared by every instance: with REDIS_URL each limit lives in Redis (rate-limiter-flexible's
// RateLimiterRedis), so N instances behind a load balancer admit what one would. When Redis cannot answer
// (down, or slower than REDIS_TIMEOUT_MS) an in-memory limiter of this process takes over (its insurance
// limiter): the service keeps answering, a warning is logged once per outage and `fallbacks` counts every
// decision taken in memory. Without Redis, a worker of `serve` with WORKERS > 1 asks the cluster's primary
// process (RateLimiterCluster), so the limits stay global across the workers; a lone process counts in memory.
//
// Observers: onLimitEvent(listener) is told of every rate-limit refusal, every fallback decision and every
// quota refusal (quota.ts), for metrics; counters() returns the same as running totals.
import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type LimitName = 'verify' | 'ip' | 'intelligence' | 'fingerprint' | 'failed_auth';

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
  /** The Redis connection when REDIS_URL is set (quota.ts counts there too). */
  readonly redis: Redis | null;
  /** Key prefix of everything this service stores in Redis. */
  readonly prefix: string;
  /** Records that a decision was taken without Redis: counted, and a warning the first time in an outage. */
  fellBack(what: LimitName | 'quota', error: unknown): void;
  emit(event: LimitEvent): void;
  onLimitEvent(listener: (event: LimitEvent) => void): () => void;
  counters(): LimitCounters;
}

export interface LimitsOptions {
  redis: Redis | null;
  prefix: string;
  log: Logger;
  /** Wait for the cluster primary's answer at most this long. */
  timeoutMs: number;
  /** Redis did not answer at start (already logged): the next fallbacks are not news. */
  redisDownAtStart?: boolean;
}

/** rate-limiter-flexible's in-memory limiter, used as insurance: every decision it takes is reported. */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: { points: number; duration: number; keyPrefix: string },
    private readonly used: (error: unknown) => void,
  ) {
    super(options);
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.used(new Error('redis did not answer'));
    return super.consume(key, points, options);
  }
}

export function createLimits(options: LimitsOptions): Limits {
  const { redis, prefix, log } = options;
  const listeners = new Set<(event: LimitEvent) => void>();
  const counts: LimitCounters = {
    rateLimited: { verify: 0, ip: 0, intelligence: 0, fingerprint: 0, failed_auth: 0 },
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

  const fellBack = (what: LimitName | 'quota', error: unknown) => {
    if (!outage) {
      outage = true;
      const shared = redis ? 'Redis' : 'the cluster primary';
      log.warn(
        { limit: what, reason: error instanceof Error ? error.message : String(error) },
        `${shared} does not answer: rate limits and quota are counted by this process alone until it does`,
      );
    }
    emit({ type: 'fallback', limit: what });
  };
  redis?.on('ready', () => {
    if (!outage) return;
    outage = false;
    log.info('Redis answers again: rate limits and quota are shared again');
  });

  const clusterWorker = !redis && cluster.isWorker;
  const made = new Map<LimitName, Limiter>();

  function build(name: LimitName, points: number, duration: number): Limiter {
    const keyPrefix = `${prefix}limit:${name}`;
    const local = new InsuranceLimiter({ points, duration, keyPrefix }, (error) => fellBack(name, error));
    const shared = redis
      ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: local })
      : clusterWorker
        ? new RateLimiterCluster({ points, duration, keyPrefix, timeoutMs: options.timeoutMs })
        : new RateLimiterMemory({ points, duration, keyPrefix });
    // RateLimiterRedis hands its own failures to the insurance limiter; the cluster limiter's are handled here.
    const guarded = async <T>(call: (limiter: RateLimiterRedis | RateLimiterCluster | RateLimiterMemory) => Promise<T>): Promise<T> => {
      try {
        return await call(shared);
      } catch (caught) {
        if (caught instanceof RateLimiterRes || shared instanceof RateLimiterRedis) throw caught;
        return call(local);
      }
    };
    return {
      async take(key) {
        try {
          await guarded((limiter) => limiter.consume(key));
          return null;
        } catch (caught) {
          if (!(caught instanceof RateLimiterRes)) throw caught;
          emit({ type: 'rate_limited', limit: name });
          return caught.msBeforeNext;
        }
      },
    };
  }

  return {
    redis,
    prefix,
    limiter(name, points, duration) {
      let limiter = made.get(name);
      if (!limiter) {
        limiter = build(name, points, duration);
        made.set(name, limiter);
      }
      return limiter;
    },
    fellBack,
    emit,
    onLimitEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    counters: () => structuredClone(counts),
  };
}
