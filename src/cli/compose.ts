// The composition root: builds the config, opens the store, takes the plugin registry and hands
// them down. Nothing below src/cli knows where its parts come from.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { registry } from '../../plugins/index.js';
import type { Config } from '../config.js';
import { FactCatalog } from '../engine/catalog.js';
import { createApp } from '../http/app.js';
import { InFlightRequests } from '../http/middleware/in-flight.js';
import { buildOpenApiDocument } from '../http/openapi/document.js';
import { countRejection, reportDataAges } from '../metrics.js';
import { createNetwork, type Network } from '../network/index.js';
import type { ResolverState } from '../network/resolver-check.js';
import { summarizeNetwork } from '../network/summary.js';
import { packageRoot } from '../paths.js';
import { PolicyBook, type UnresolvedPolicy } from '../policy/book.js';
import { createPolicyChecks } from '../policy/check-thread.js';
import { formatProblem } from '../policy/errors.js';
import { createAccess } from '../service/access.js';
import type { ServiceContext } from '../service/context.js';
import { dataAgeSamples, staleAdvice, staleLists } from '../service/data-age.js';
import { FingerprintSealer } from '../service/fingerprint.js';
import { createLimits, type Limits } from '../service/limits.js';
import { createOperations } from '../service/operations.js';
import { startPolicyReload } from '../service/policy-reload.js';
import { createQuota, type Quota } from '../service/quota.js';
import { ProbeFailure, Readiness } from '../service/readiness.js';
import { openDatabase, type Store } from '../store/database.js';
import { closeRedis, connectRedis, redisReady } from '../store/redis.js';
import { isUnavailable, outageReason } from '../store/unavailable.js';
import { UsageError } from './errors.js';
import { createLogger } from './logger.js';
import { databaseName } from './with-store.js';

export { createLogger } from './logger.js';

export interface Service {
  config: Config;
  log: Logger;
  store: Store;
  policies: PolicyBook;
  catalog: FactCatalog;
  /** The network checks' lookups (DNS, RDAP, website, DNS blocklists). */
  network: Network;
  /** GET /readyz's probes; add one per part that must be reachable (`readiness.add('redis', …)`). */
  readiness: Readiness;
  app: Koa;
  /** The requests the app is handling: a stop waits for them before close() (their events are committed then). */
  inFlight: InFlightRequests;
  /** Rate limits (shared through Redis when REDIS_URL is set); onLimitEvent/counters for metrics. */
  limits: Limits;
  quota: Quota;
  /** SIGHUP: policies read again from their folders, every project's policy again from the database. */
  reloadPolicies(): Promise<void>;
  close(): Promise<void>;
}

export interface ComposeOptions {
  log?: Logger;
  now?: () => number;
}

/**
 * Loads policies first (an invalid one stops the start before anything is opened), then the store; a
 * project whose policy cannot be used stops the start too. Policies reload on file change from then on.
 */
export async function composeService(config: Config, options: ComposeOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config);
  const catalog = new FactCatalog(registry);
  const policies = PolicyBook.load(config.policiesDir, catalog);
  // A policy that may not mean what it says still serves; its warnings are `policy check`'s, said once here too.
  for (const name of policies.names()) {
    for (const warning of policies.byName(name)?.warnings ?? []) log.warn({ policy: name }, `policy warning: ${formatProblem(warning)}`);
  }
  const apiDescription = buildOpenApiDocument({ catalog, config });
  log.info({ database: databaseName(config.databaseUrl) }, `using ${databaseName(config.databaseUrl)}`);
  const store = await openDatabase(config.databaseUrl, { log });
  await store.migrate();
  const unresolved = policies.resolveProjects(await store.projects.list());
  if (unresolved.length > 0) {
    await store.close();
    throw new UsageError(unresolved.map(unresolvedMessage).join('\n'));
  }
  let keys = config.fingerprintKeys;
  if (keys.length === 0) {
    log.warn('FINGERPRINT_KEYS is not set: fingerprints are sealed with a key kept in the database, readable by anyone who can read it; set FINGERPRINT_KEYS');
    try {
      keys = [await store.fingerprintKeys.shared()];
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const reload = startPolicyReload({ book: policies, store, log });
  const now = options.now ?? Date.now;
  const network = createNetwork(config.network, store.domainFacts, log);
  const policyChecks = createPolicyChecks({ workerFile: builtModule('policy-check-worker.js') });
  const ctx: ServiceContext = { store, policies, policyChecks, catalog, network, log, config, now };
  const operations = createOperations(ctx, {
    sealer: new FingerprintSealer(keys, config.fingerprintTtlSeconds),
  });
  const redis = config.redis ? await connectRedis(config.redis, log) : null;
  // A start waits a moment for Redis, so the first requests are already counted there; without it the
  // service starts anyway, its limits in memory until Redis answers.
  const redisDownAtStart = redis !== null && config.redis !== null && !(await redisReady(redis, Math.max(1000, config.redis.timeoutMs * 4)));
  if (redisDownAtStart && config.redis) {
    log.warn({ redis: redactedUrl(config.redis.url) }, 'Redis does not answer at start: rate limits and quota are counted by this process alone until it does');
  }
  const limits = createLimits({ redis, prefix: config.redis?.prefix ?? 'email-trust:', log, timeoutMs: 1000, redisDownAtStart });
  const quota = createQuota({ usage: store.usage, limits, now });
  // Rejections and in-memory fallbacks of the limits and the quota, counted in /metrics.
  limits.onLimitEvent((event) => {
    if (event.type === 'rate_limited') countRejection(event.limit === 'failed_auth' ? 'failed_auth' : 'rate_limit', event.limit);
    else if (event.type === 'fallback') countRejection('limiter_fallback', event.limit);
    else countRejection('quota', 'monthly');
  });
  const networkSummary = summarizeNetwork(config.network);
  const readiness = new Readiness()
    .add('database', () => store.knex.raw('select 1'))
    .add('policies', () => {
      if (policies.names().length === 0) throw new ProbeFailure('no policy is loaded');
    })
    .inform('policies', () => policies.activeRevisions())
    .inform('network', () => networkSummary);
  if (redis) readiness.add('redis', () => redis.ping(), { required: false });
  const { selfCheck } = network;
  if (selfCheck) {
    // Reported, never unready: the service answers without DNS (its facts unknown), as without Redis.
    readiness.add('dns', () => dnsProbe(selfCheck.state()), { required: false });
    selfCheck.start(config.network.dnsCheckIntervalSeconds * 1000);
    // A resolver that lies answers at once: the first requests must not meet it unchecked. One that does not
    // answer at all only makes requests' DNS facts unknown, so the start waits for it at most a second.
    await Promise.race([selfCheck.check(), delay(FIRST_DNS_CHECK_WAIT_MS)]);
  }
  reportDataAges(() => dataAgeSamples(registry, now()));
  if (config.data.ageCheck) {
    // Reported, never unready: a stale list still answers, less well (decision 0091).
    readiness.add(
      'data',
      () => {
        const stale = staleLists(registry, now());
        if (stale.length > 0) throw new ProbeFailure(staleAdvice(stale));
      },
      { required: false },
    );
  }
  const access = createAccess(store.keys, { now, log });
  const inFlight = new InFlightRequests();
  const outages = { isUnavailable, reasonOf: outageReason };
  const app = createApp({ config, log, access, origins: store.projects, operations, limits, quota, readiness, apiDescription, outages, inFlight });
  const close = async () => {
    reload.close();
    await policyChecks.close();
    await network.close();
    limits.close();
    if (redis) await closeRedis(redis);
    await access.close();
    await store.close();
  };
  return { config, log, store, policies, catalog, network, readiness, app, inFlight, limits, quota, reloadPolicies: () => reload.reloadNow(), close };
}

/** Why a project cannot start with its policy, and what to do. */
function unresolvedMessage(u: UnresolvedPolicy): string {
  if (u.problems.length === 0) return `cannot start: ${u.reason}`;
  const problems = u.problems.map(formatProblem).join('; ');
  return `cannot start: project "${u.project}": its stored policy "${u.policy}" does not compile: ${problems}; store a fixed one with \`email-trust project update ${u.project} --policy FILE\``;
}

/** A module beside this one in the built package (under the test runner, which runs the TypeScript, the one in dist/). */
function builtModule(name: string): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? join(packageRoot, 'dist/src/cli', name) : join(dirname(here), name);
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

/** How long a start waits for the resolvers' first self-check before it serves anyway. */
const FIRST_DNS_CHECK_WAIT_MS = 1_000;

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

/** The last self-check's verdict as a readiness probe: its canaries' answers when none resolved. */
function dnsProbe(state: ResolverState): void {
  if (state.healthy !== false) return;
  const seen = state.canaries.map((canary) => `${canary.domain}: ${canary.outcome}`).join(', ');
  throw new ProbeFailure(`domains that must exist do not resolve (${seen}): DNS facts are unknown; set DNS_SERVERS or NETWORK_CHECKS=off`);
}
