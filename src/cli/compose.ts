// The composition root: builds the config, opens the store, takes the plugin registry and hands
// them down. Nothing below src/cli knows where its parts come from.
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { registry } from '../../plugins/index.js';
import type { Config } from '../config.js';
import { FactCatalog } from '../engine/catalog.js';
import { createApp } from '../http/app.js';
import { buildOpenApiDocument } from '../http/openapi/document.js';
import { countRejection } from '../metrics.js';
import { createNetwork } from '../network/index.js';
import { PolicyBook } from '../policy/book.js';
import type { ServiceContext } from '../service/context.js';
import { FingerprintSealer } from '../service/fingerprint.js';
import { createLimits, type Limits } from '../service/limits.js';
import { createOperations } from '../service/operations.js';
import { createQuota, type Quota } from '../service/quota.js';
import { ProbeFailure, Readiness } from '../service/readiness.js';
import { openDatabase, type Store } from '../store/database.js';
import { closeRedis, connectRedis, redisReady } from '../store/redis.js';
import { createLogger } from './logger.js';

export { createLogger } from './logger.js';

export interface Service {
  config: Config;
  log: Logger;
  store: Store;
  policies: PolicyBook;
  catalog: FactCatalog;
  /** GET /readyz's probes; add one per part that must be reachable (`readiness.add('redis', …)`). */
  readiness: Readiness;
  app: Koa;
  /** Rate limits (shared through Redis when REDIS_URL is set); onLimitEvent/counters for metrics. */
  limits: Limits;
  quota: Quota;
  close(): Promise<void>;
}

export interface ComposeOptions {
  log?: Logger;
  now?: () => number;
}

/** Loads policies first (an invalid one stops the start before anything is opened), then the store. */
export async function composeService(config: Config, options: ComposeOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config);
  const catalog = new FactCatalog(registry);
  const policies = PolicyBook.load(config.policiesDir, catalog);
  const apiDescription = buildOpenApiDocument({ catalog, config });
  const store = await openDatabase(config.databaseUrl);
  await store.migrate();
  const now = options.now ?? Date.now;
  const network = createNetwork(config.network, store.domainFacts, log);
  const ctx: ServiceContext = { store, policies, catalog, network, log, config, now };
  let keys = config.fingerprintKeys;
  if (keys.length === 0) {
    log.warn('FINGERPRINT_KEYS is not set: fingerprints are sealed with a key made at start and will not open after a restart or on another instance');
    keys = [{ id: 'eph', key: randomBytes(32) }];
  }
  const operations = createOperations(ctx, {
    sealer: new FingerprintSealer(keys, config.fingerprintTtlSeconds),
  });
  const redis = config.redis ? connectRedis(config.redis, log) : null;
  // A start waits a moment for Redis, so the first requests are already counted there; without it the
  // service starts anyway, its limits in memory until Redis answers.
  const redisDownAtStart = redis !== null && config.redis !== null && !(await redisReady(redis, Math.max(1000, config.redis.timeoutMs * 4)));
  if (redisDownAtStart && config.redis) {
    log.warn({ redis: redactedUrl(config.redis.url) }, 'Redis does not answer at start: rate limits and quota are counted by this process alone until it does');
  }
  const limits = createLimits({ redis, prefix: config.redis?.prefix ?? 'email-trust:', log, timeoutMs: 1000, redisDownAtStart });
  const quota = createQuota({ usage: store.usage, limits, log, now });
  // Rejections and in-memory fallbacks of the limits and the quota, counted in /metrics.
  limits.onLimitEvent((event) => {
    if (event.type === 'rate_limited') countRejection(event.limit === 'failed_auth' ? 'failed_auth' : 'rate_limit', event.limit);
    else if (event.type === 'fallback') countRejection('limiter_fallback', event.limit);
    else countRejection('quota', 'monthly');
  });
  const readiness = new Readiness()
    .add('database', () => store.knex.raw('select 1'))
    .add('policies', () => {
      if (policies.names().length === 0) throw new ProbeFailure('no policy is loaded');
    });
  if (redis) readiness.add('redis', () => redis.ping());
  const app = createApp({ config, log, access: store.keys, origins: store.projects, operations, limits, quota, readiness, apiDescription });
  const close = async () => {
    await network.close();
    await quota.close().catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'quota: last usage counts not stored'));
    if (redis) await closeRedis(redis);
    await store.close();
  };
  return { config, log, store, policies, catalog, readiness, app, limits, quota, close };
}

/** A Redis URL without its password, for logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis';
  }
}
