// The service's Prometheus metrics (prom-client), one registry per process, served by GET /metrics
// (src/http/metrics.ts). A leaf module like abort.ts: the store, the network and the HTTP layer record
// into it without knowing who reads it. Labels are bounded sets (route patterns, statuses, actions,
// check names, lookup kinds), never a raw URL, address or key.
//
// Other modules count their own events through `countRejection` (rate limits, quota, limiter
// fallback), or register a metric of their own on `registry` with the `email_trust_` prefix.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { LabelHistogram } from './label-histogram.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'email_trust_' });

/** Seconds; from a fast cached verify (~1 ms) to the network budget and past it. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'email_trust_http_requests_total',
  help: 'HTTP requests answered, by route pattern (the router path, "unmatched" when none), method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'email_trust_http_request_duration_seconds',
  help: 'Time from the request reaching Koa to its answer being set, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const actions = new Counter({
  name: 'email_trust_actions_total',
  help: 'Verdicts given, by operation (verify, intelligence) and action (allow, flag, block …)',
  labelNames: ['operation', 'action'] as const,
  registers: [registry],
});

export const checkDuration = new LabelHistogram(
  'email_trust_plugin_duration_seconds',
  'Time a plugin took to compute its facts for one request (network waits included), by plugin',
  'plugin',
  LATENCY_BUCKETS,
  registry,
);

export const lookups = new Counter({
  name: 'email_trust_lookup_cache_total',
  help: 'Network lookups (DNS, RDAP, website) by kind and outcome: hit (memory cache), table (domain facts table), miss (asked the world), joined (waited for the same question asked by another request), unanswered (budget spent, too busy, internal error)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});

export const eventBatchSize = new Histogram({
  name: 'email_trust_event_batch_rows',
  help: 'Event rows per commit of the event writer',
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000],
  registers: [registry],
});

export const eventCommitDuration = new Histogram({
  name: 'email_trust_event_commit_duration_seconds',
  help: 'Time an event commit took (rows, velocity counters and usage counts, one transaction; on SQLite a wait for a lock held elsewhere included), by outcome',
  labelNames: ['outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const rejections = new Counter({
  name: 'email_trust_rejections_total',
  help: 'Requests refused or degraded by a limit, by kind (rate_limit, quota, failed_auth, limiter_fallback) and limit (verify, ip, intelligence, fingerprint …)',
  labelNames: ['kind', 'limit'] as const,
  registers: [registry],
});

export const policyReloads = new Counter({
  name: 'email_trust_policy_reloads_total',
  help: 'Policy reloads, by source (file: a named policy in POLICIES_DIR or the shipped folder; stored: a project policy) and result (loaded, failed: the previous revision stays in use)',
  labelNames: ['source', 'result'] as const,
  registers: [registry],
});

export const policyRevision = new Gauge({
  name: 'email_trust_policy_revision_info',
  help: 'The revision in use for each named policy (value 1; one series per policy)',
  labelNames: ['policy', 'revision'] as const,
  registers: [registry],
});

/** One data list's age for the two gauges below, by `plugin/list` (a bounded set: the lists the plugins declare). */
export interface DataAgeSample {
  list: string;
  ageSeconds: number;
  /** Its upstream's maximum age; null without one. */
  maxAgeSeconds: number | null;
}

let dataAges: () => readonly DataAgeSample[] = () => [];

/** What the data gauges read at each scrape (the composition root hands the plugins' lists in). */
export function reportDataAges(read: () => readonly DataAgeSample[]): void {
  dataAges = read;
}

export const dataAgeSeconds = new Gauge({
  name: 'email_trust_data_age_seconds',
  help: "Age of each data list a check loads, by plugin/list: since its update was fetched (email-trust data update), else since the shipped snapshot's date",
  labelNames: ['list'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const sample of dataAges()) this.set({ list: sample.list }, sample.ageSeconds);
  },
});

export const dataMaxAgeSeconds = new Gauge({
  name: 'email_trust_data_max_age_seconds',
  help: 'Maximum age of each data list with an upstream, by plugin/list (alert on email_trust_data_age_seconds above it)',
  labelNames: ['list'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const sample of dataAges()) if (sample.maxAgeSeconds !== null) this.set({ list: sample.list }, sample.maxAgeSeconds);
  },
});

export type RejectionKind = 'rate_limit' | 'quota' | 'failed_auth' | 'limiter_fallback';

/** Counts one refusal (or a limiter falling back to memory): what the rate limiter and the quota call. */
export function countRejection(kind: RejectionKind, limit: string): void {
  rejections.inc({ kind, limit });
}

/** Seconds since `start` (a performance.now() reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}
