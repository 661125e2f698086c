// The outside world, built once by the composition root: DNS (and the DNS blocklists asked through it),
// RDAP and the website probe, each through the shared cached lookup, and a NetworkAccess per request bound to the request's budget (one
// AbortSignal that every lookup of the request stops waiting on) and persist flag.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { NetworkConfig } from '../config.js';
import type { NetworkAccess } from '../engine/plugin.js';
import { throttled } from '../log-throttle.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { isUnavailable, outageReason } from '../store/unavailable.js';
import { blocklistLookup } from './blocklists.js';
import { createDnsLookup } from './dns.js';
import { OFFLINE } from './offline.js';
import { createRegistrationLookup } from './rdap.js';
import { createResolverCheck, type ResolverCheck } from './resolver-check.js';
import { createWebsiteProbe } from './website.js';

export interface Network {
  /** The network of one request: `persist` false for soft_check; every lookup ends by the budget. */
  forRequest(request: { persist: boolean; now: number }): NetworkAccess;
  /** The resolvers' self-check (DNS_CANARIES); null with network checks off or no canaries. Started by its owner. */
  selfCheck: ResolverCheck | null;
  /** Waits for domain-facts writes in flight, then stops (before the store closes). */
  close(): Promise<void>;
}

/** What a request's DNS questions answer while the resolvers fail their self-check: unknown, nothing asked. */
const UNRESOLVED = { status: 'error', reason: 'the DNS resolvers fail their self-check (DNS_CANARIES)' } as const;
const UNRESOLVED_DNS: NetworkAccess['dns'] = { mx: async () => UNRESOLVED, a: async () => UNRESOLVED, aaaa: async () => UNRESOLVED };

export function createNetwork(config: NetworkConfig, domainFacts: DomainFacts, log: Logger): Network {
  if (!config.enabled) return { forRequest: () => OFFLINE, selfCheck: null, close: async () => {} };
  // In an outage every lookup fails: its name and code, at most one line a second (store/unavailable.ts).
  const onError = (error: unknown) => {
    const reason = isUnavailable(error) ? outageReason(error) : null;
    const fields = reason ? { reason } : { err: error };
    throttled(log).write(
      'warn',
      `network check: domain facts: ${reason ?? 'failed'}`,
      fields,
      'network check: the domain facts table failed; going on without it',
    );
  };
  const dns = createDnsLookup({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs, tries: config.dnsTries, domainFacts, onError });
  const registration = createRegistrationLookup({
    ...(config.rdapBaseUrl ? { baseUrl: config.rdapBaseUrl } : {}),
    ...(config.rdapBootstrapFile ? { bootstrapFile: config.rdapBootstrapFile } : {}),
    servers: config.dnsServers,
    timeoutMs: config.rdapTimeoutMs,
    ttlMs: config.rdapCacheTtlSeconds * 1000,
    domainFacts,
    onError,
  });
  const website = createWebsiteProbe({
    enabled: config.webChecks,
    servers: config.dnsServers,
    timeoutMs: config.webTimeoutMs,
    ttlMs: config.webCacheTtlSeconds * 1000,
    domainFacts,
    onError,
  });
  const zones = { domain: config.dnsblDomainZones, ip: config.dnsblIpZones };
  const selfCheck = resolverCheck(config, log);
  return {
    selfCheck,
    forRequest({ persist, now }) {
      const request = new RequestBudget(persist, now + config.budgetMs);
      const lookups = selfCheck?.failing() ? UNRESOLVED_DNS : dns.forRequest(request);
      return {
        enabled: true,
        dns: lookups,
        registration: registration.forRequest(request),
        website: website.forRequest(request),
        blocklists: blocklistLookup(zones, lookups),
      };
    },
    async close() {
      selfCheck?.stop();
      for (const service of [dns, registration, website]) service.close();
      await Promise.all([dns.flush(), registration.flush(), website.flush()]);
    },
  };
}

/** The self-check asks each canary through a resolver of its own, made for the question: nothing cached. */
function resolverCheck(config: NetworkConfig, log: Logger): ResolverCheck | null {
  if (config.dnsCanaries.length === 0) return null;
  return createResolverCheck({
    canaries: config.dnsCanaries,
    askMx(domain, signal) {
      const fresh = createDnsLookup({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs, tries: config.dnsTries });
      return fresh
        .forRequest({ persist: false, signal })
        .mx(domain)
        .finally(() => fresh.close());
    },
    timeoutMs: config.dnsTimeoutMs * config.dnsTries + 1000,
    resolvers: config.dnsServers.length > 0 ? `DNS_SERVERS (${config.dnsServers.join(', ')})` : "the system's resolvers (/etc/resolv.conf)",
    log,
  });
}

/**
 * One request's share of the network budget. A class, not a literal with a getter: a getter literal made per
 * request gets a hidden class of its own, which keeps the request alive through scavenges (decision 0077).
 */
class RequestBudget {
  private made: AbortSignal | undefined;
  constructor(
    readonly persist: boolean,
    private readonly deadline: number,
  ) {}

  /** Made when a lookup first has to wait: a request answered from memory never pays for a timer. The budget runs from the request's start, on the wall clock the lookups wait on. */
  get signal(): AbortSignal {
    if (this.made) return this.made;
    const left = this.deadline - Date.now();
    this.made = left > 0 ? AbortSignal.timeout(left) : AbortSignal.abort();
    // Each of the request's lookups waits on it (DNS, blocklist zones, RDAP): more than Node's 10 listeners is
    // no leak (each is removed when its lookup settles), and the warning would tell operators it is.
    setMaxListeners(0, this.made);
    return this.made;
  }
}
