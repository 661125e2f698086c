// DNS lookups for the dns plugin: node's c-ares Resolver with an explicit timeout and number of tries,
// through the shared cached lookup (cached-lookup.ts: memory, domain facts table, one question per name,
// the request's budget). Nothing here throws to a caller: failures are answers.
//
// Options (the composition root maps the environment onto them):
//   servers        DNS_SERVERS     comma-separated `ip`, `ip:port` or `[ipv6]:port`; default: the system's
//   timeoutMs      DNS_TIMEOUT_MS  first try's timeout per server (c-ares doubles it on each later try); 500;
//                                  also how long the domain facts table is waited for before asking DNS
//   tries          DNS_TRIES       tries per server before the question fails; 2
//   maxEntries     in-memory answers kept (least recently used go first); 10,000
//   maxInFlight    questions running at once across requests; past it a lookup answers an error; 1,000
//                  (generous: it only stops a flood of distinct names from piling up on the resolver)
//   negativeTtlMs  how long NXDOMAIN / NODATA answers are cached (memory and table); 300 s
//   mxTtlMs        how long MX answers are cached: node's resolveMx reports no TTL; 300 s
//   maxTtlMs       upper bound on any cached answer, whatever its TTL says; 1 day
// A and AAAA answers are kept for their records' smallest TTL. Errors (SERVFAIL, REFUSED, timeout,
// unreachable server) are never cached: the next request asks again.
import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsLookup, MxRecord } from '../engine/plugin.js';
import { hostName } from '../host-name.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { type Asked, createCachedLookup, type LookupRequest } from './cached-lookup.js';
import { settingsFrom } from './settings.js';

export interface DnsSettings {
  timeoutMs: number;
  tries: number;
  maxEntries: number;
  maxInFlight: number;
  negativeTtlMs: number;
  mxTtlMs: number;
  maxTtlMs: number;
}

export const DNS_DEFAULTS: Readonly<DnsSettings> = {
  timeoutMs: 500,
  tries: 2,
  maxEntries: 10_000,
  maxInFlight: 1_000,
  negativeTtlMs: 300_000,
  mxTtlMs: 300_000,
  maxTtlMs: 86_400_000,
};

export interface DnsOptions extends Partial<DnsSettings> {
  /** Name servers (`ip`, `ip:port`, `[ipv6]:port`); empty or absent: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** The store's domain facts: read on a memory miss, written for requests that persist. */
  domainFacts?: Pick<DomainFacts, 'get' | 'put'> | null;
  /** Clock for TTLs (ms since the epoch); injectable for tests. */
  now?: () => number;
  /** Told about domain-facts read/write failures (the lookup goes on without the table). */
  onError?: (error: unknown) => void;
}

export interface DnsService {
  /** The lookups of one request, bound to its budget signal and persist flag. */
  forRequest(request: LookupRequest): DnsLookup;
  /** Resolves when every domain-facts write started so far has finished (tests, shutdown). */
  flush(): Promise<void>;
  /** Cancels the questions in flight (they answer `error`); for shutdown. */
  close(): void;
}

export type DnsKind = 'mx' | 'a' | 'aaaa';
type RecordOf<K extends DnsKind> = K extends 'mx' ? MxRecord : string;

/** Domain facts `kind` of each question. */
const DNS_FACTS = { mx: 'dns:mx', a: 'dns:a', aaaa: 'dns:aaaa' } as const;
type DnsFact = (typeof DNS_FACTS)[DnsKind];

const INVALID_NAME = { status: 'error', reason: 'invalid domain name' } as const;

const ERROR_REASONS: Readonly<Record<string, string>> = {
  ESERVFAIL: 'servfail',
  EREFUSED: 'refused',
  ETIMEOUT: 'timeout',
  ECONNREFUSED: 'connection refused',
  ECANCELLED: 'cancelled',
  EBADNAME: 'invalid domain name',
};

/** Maps a c-ares rejection to an answer: NXDOMAIN and NODATA are answers, everything else is an error. */
export function answerFromError(error: unknown): DnsAnswer<never> {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'ENOTFOUND') return { status: 'nxdomain' };
  if (code === 'ENODATA') return { status: 'nodata' };
  const reason = typeof code === 'string' ? (ERROR_REASONS[code] ?? code.toLowerCase()) : 'resolver error';
  return { status: 'error', reason };
}

export function createDnsLookup(options: DnsOptions = {}): DnsService {
  const settings = settingsFrom(DNS_DEFAULTS, options, true);
  const resolver = new Resolver({ timeout: settings.timeoutMs, tries: settings.tries });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);

  /** A settled answer, kept for `ttlMs` within maxTtlMs. */
  const kept = (answer: DnsAnswer<unknown>, ttlMs: number): Asked<DnsAnswer<unknown>> => ({
    answer,
    stored: answer,
    ttlMs: Math.min(ttlMs, settings.maxTtlMs),
  });

  async function addresses(name: string, fact: 'dns:a' | 'dns:aaaa'): Promise<Asked<DnsAnswer<unknown>>> {
    const records = fact === 'dns:a' ? await resolver.resolve4(name, { ttl: true }) : await resolver.resolve6(name, { ttl: true });
    const ttl = records.reduce((min, record) => Math.min(min, record.ttl), Number.POSITIVE_INFINITY);
    return kept({ status: 'ok', records: records.map((record) => record.address) }, Number.isFinite(ttl) ? ttl * 1000 : settings.negativeTtlMs);
  }

  async function exchanges(name: string): Promise<Asked<DnsAnswer<unknown>>> {
    const records = await resolver.resolveMx(name);
    return kept({ status: 'ok', records: records.map(({ exchange, priority }) => ({ exchange, priority })) }, settings.mxTtlMs);
  }

  const cache = createCachedLookup<DnsFact, DnsAnswer<unknown>>({
    maxEntries: settings.maxEntries,
    maxInFlight: settings.maxInFlight,
    busyReason: 'too many DNS lookups at once',
    domainFacts: options.domainFacts ?? null,
    // A table slower than a DNS try is not worth waiting for: ask the network instead.
    tableWaitMs: settings.timeoutMs,
    now: options.now ?? Date.now,
    onError: options.onError ?? (() => undefined),
    unanswered: (reason) => ({ status: 'error', reason }),
    fromStored: (value, fact) => (isSettledAnswer(fact, value) ? { answer: value, stored: value } : null),
    async ask(name, fact) {
      try {
        return fact === 'dns:mx' ? await exchanges(name) : await addresses(name, fact);
      } catch (error) {
        const answer = answerFromError(error);
        // An error is never remembered nor stored: the next request asks again.
        return answer.status === 'error' ? { answer, stored: null, ttlMs: 0 } : kept(answer, settings.negativeTtlMs);
      }
    },
  });

  async function lookup<K extends DnsKind>(kind: K, domain: string, request: LookupRequest): Promise<DnsAnswer<RecordOf<K>>> {
    const name = typeof domain === 'string' ? hostName(domain, 'dns') : null;
    if (name === null) return INVALID_NAME;
    return (await cache.lookup(DNS_FACTS[kind], name, request)) as DnsAnswer<RecordOf<K>>;
  }

  return {
    forRequest(request) {
      return {
        mx: (domain) => lookup('mx', domain, request),
        a: (domain) => lookup('a', domain, request),
        aaaa: (domain) => lookup('aaaa', domain, request),
      };
    },
    flush: () => cache.flush(),
    close() {
      resolver.cancel();
    },
  };
}

/** A stored value is trusted only when it has the shape we write. */
function isSettledAnswer(fact: DnsFact, value: unknown): value is DnsAnswer<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const { status, records } = value as { status?: unknown; records?: unknown };
  if (status === 'nxdomain' || status === 'nodata') return true;
  if (status !== 'ok' || !Array.isArray(records)) return false;
  if (fact !== 'dns:mx') return records.every((record) => typeof record === 'string');
  return records.every(
    (record: unknown) =>
      typeof record === 'object' && record !== null && typeof (record as MxRecord).exchange === 'string' && typeof (record as MxRecord).priority === 'number',
  );
}
