// The resolvers' self-check: a few domains that must exist (DNS_CANARIES, by default large mail providers)
// asked for their MX records at start and every DNS_CHECK_INTERVAL_SECONDS. A resolver that answers
// NXDOMAIN for everything (a captive or filtering resolver, a container without DNS) or does not answer at
// all would otherwise make every address "without MX" and block it. When no canary resolves, the check is
// failing: the service logs one warning that says what to do, /readyz reports `dns` degraded, and the DNS
// lookups of requests answer unknown without asking (network/index.ts), until a check passes again.
// Each check asks through a resolver of its own with nothing cached, so a cached answer never hides a
// resolver that has started to lie.
import type { Logger } from 'pino';
import type { DnsAnswer, MxRecord } from '../engine/plugin.js';

export interface CanaryAnswer {
  domain: string;
  /** ok, or what came back instead (nxdomain, nodata, the error). */
  outcome: string;
}

export interface ResolverState {
  /** null before the first check has ended: requests are not held back on it. */
  healthy: boolean | null;
  checkedAt: number | null;
  canaries: CanaryAnswer[];
}

export interface ResolverCheck {
  state(): ResolverState;
  /** Whether requests should skip DNS: the last check found no canary resolving. */
  failing(): boolean;
  /** Runs a check now (the one in flight, if any) and returns the state it leaves. */
  check(): Promise<ResolverState>;
  /** Checks now and then every `intervalMs` (0: only now), in the background. */
  start(intervalMs: number): void;
  stop(): void;
}

export interface ResolverCheckOptions {
  canaries: readonly string[];
  /** MX question through a resolver with nothing cached, bounded by `signal`. */
  askMx(domain: string, signal: AbortSignal): Promise<DnsAnswer<MxRecord>>;
  /** How long one check may take in all. */
  timeoutMs: number;
  /** What the warning names as the resolvers asked (DNS_SERVERS, or the system's). */
  resolvers: string;
  log: Logger;
  now?: () => number;
}

export function outcomeOf(answer: DnsAnswer<MxRecord>): string {
  if (answer.status === 'ok') return answer.records.length > 0 ? 'ok' : 'nodata';
  return answer.status === 'error' ? `error (${answer.reason})` : answer.status;
}

export function createResolverCheck(options: ResolverCheckOptions): ResolverCheck {
  const now = options.now ?? Date.now;
  let state: ResolverState = { healthy: null, checkedAt: null, canaries: [] };
  let running: Promise<ResolverState> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function run(): Promise<ResolverState> {
    const signal = AbortSignal.timeout(options.timeoutMs);
    const canaries = await Promise.all(
      options.canaries.map(async (domain) => ({
        domain,
        outcome: outcomeOf(await options.askMx(domain, signal).catch((error: unknown) => ({ status: 'error', reason: String(error) }) as const)),
      })),
    );
    const healthy = canaries.some((canary) => canary.outcome === 'ok');
    const was = state.healthy;
    state = { healthy, checkedAt: now(), canaries };
    if (!healthy && was !== false) {
      const seen = canaries.map((canary) => `${canary.domain}: ${canary.outcome}`).join(', ');
      options.log.warn(
        { canaries, resolvers: options.resolvers },
        `DNS self-check failed: domains that must exist do not resolve through ${options.resolvers} (${seen}). The resolver lies or DNS is blocked here; until it answers, DNS facts are unknown (no address is blocked for a "missing" MX). Set DNS_SERVERS to a resolver that works, or NETWORK_CHECKS=off to run offline`,
      );
    } else if (healthy && was === false) {
      options.log.info({ canaries, resolvers: options.resolvers }, 'DNS self-check passes again: DNS facts are looked up again');
    }
    return state;
  }

  const check = (): Promise<ResolverState> => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    state: () => state,
    failing: () => state.healthy === false,
    check,
    start(intervalMs) {
      if (options.canaries.length === 0) return;
      void check();
      if (intervalMs > 0 && timer === null) {
        timer = setInterval(() => void check(), intervalMs);
        timer.unref();
      }
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
