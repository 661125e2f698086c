// DNS lookups for the dns plugin: node's c-ares Resolver with an explicit timeout and number of tries,
// answers cached in memory (TTL-honouring, with a negative cache) and in the domain facts table, every
// question raced against the request's deadline. Nothing here throws to a caller: failures are answers.
//
// Options (the composition root maps the environment onto them):
//   servers        DNS_SERVERS     comma-separated `ip`, `ip:port` or `[ipv6]:port`; default: the system's
//   timeoutMs      DNS_TIMEOUT_MS  first try's timeout per server (c-ares doubles it on each later try); 500
//   tries          DNS_TRIES       tries per server before the question fails; 2
//   maxEntries     in-memory answers kept (least recently used go first); 10,000
//   negativeTtlMs  how long NXDOMAIN / NODATA answers are cached (memory and table); 300 s
//   mxTtlMs        how long MX answers are cached: node's resolveMx reports no TTL; 300 s
//   maxTtlMs       upper bound on any cached answer, whatever its TTL says; 1 day
// Errors (SERVFAIL, REFUSED, timeout, unreachable server) are never cached: the next request asks again.
import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsLookup, MxRecord } from '../engine/plugin.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { beforeDeadline } from './deadline.js';
import { lookupName } from './dns-names.js';
import { ExpiringCache } from './expiring-cache.js';

export { lookupName, parseDnsServers } from './dns-names.js';

export interface DnsSettings {
  timeoutMs: number;
  tries: number;
  maxEntries: number;
  negativeTtlMs: number;
  mxTtlMs: number;
  maxTtlMs: number;
}

export const DNS_DEFAULTS: Readonly<DnsSettings> = {
  timeoutMs: 500,
  tries: 2,
  maxEntries: 10_000,
  negativeTtlMs: 300_000,
  mxTtlMs: 300_000,
  maxTtlMs: 86_400_000,
};

export interface DnsOptions extends Partial<DnsSettings> {
  /** Name servers (`ip`, `ip:port`, `[ipv6]:port`); empty or absent: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** The store's domain facts: read on a memory miss, written for requests that persist. */
  domainFacts?: Pick<DomainFacts, 'get' | 'put'> | null;
  /** Clock for TTLs and deadlines (ms since the epoch); injectable for tests. */
  now?: () => number;
  /** Told about domain-facts read/write failures (the lookup goes on without the table). */
  onError?: (error: unknown) => void;
}

export interface DnsRequest {
  /** Write answers to the domain facts table (false for soft_check requests). */
  persist: boolean;
  /** Milliseconds since the epoch after which every question answers `{status: 'error', reason: 'budget'}`. */
  deadline: number;
}

export interface DnsService {
  /** The lookups of one request, bound to its deadline and persist flag. */
  forRequest(request: DnsRequest): DnsLookup;
  /** Resolves when every domain-facts write started so far has finished (tests, shutdown). */
  flush(): Promise<void>;
  /** Cancels the questions in flight (they answer `error`); for shutdown. */
  close(): void;
}

export type DnsKind = 'mx' | 'a' | 'aaaa';
type RecordOf<K extends DnsKind> = K extends 'mx' ? MxRecord : string;
/** The answers worth keeping: everything but errors. */
type Settled<T> = Exclude<DnsAnswer<T>, { status: 'error' }>;

interface CachedAnswer {
  answer: Settled<unknown>;
  expiresAt: number;
  /** Already in the domain facts table (read from it, or written once). */
  persisted: boolean;
}

/** Domain facts `kind` of each question: `dns:mx`, `dns:a`, `dns:aaaa`. */
export const dnsFactKind = (kind: DnsKind): string => `dns:${kind}`;

const BUDGET = { status: 'error', reason: 'budget' } as const;
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

interface Queried {
  answer: DnsAnswer<unknown>;
  /** How long a settled answer may be cached, in ms. */
  ttlMs: number;
}

export function createDnsLookup(options: DnsOptions = {}): DnsService {
  const settings = settingsOf(options);
  const now = options.now ?? Date.now;
  const store = options.domainFacts ?? null;
  const onError = options.onError ?? (() => undefined);
  const resolver = new Resolver({ timeout: settings.timeoutMs, tries: settings.tries });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);

  const memory = new ExpiringCache<CachedAnswer>(settings.maxEntries);
  const inFlight = new Map<string, Promise<CachedAnswer | DnsAnswer<unknown>>>();
  const writes = new Set<Promise<void>>();

  async function query(kind: DnsKind, name: string): Promise<Queried> {
    try {
      if (kind === 'mx') {
        const records = await resolver.resolveMx(name);
        return { answer: { status: 'ok', records: records.map(({ exchange, priority }) => ({ exchange, priority })) }, ttlMs: settings.mxTtlMs };
      }
      const records = kind === 'a' ? await resolver.resolve4(name, { ttl: true }) : await resolver.resolve6(name, { ttl: true });
      const ttl = records.reduce((min, record) => Math.min(min, record.ttl), Number.POSITIVE_INFINITY);
      return { answer: { status: 'ok', records: records.map((record) => record.address) }, ttlMs: Number.isFinite(ttl) ? ttl * 1000 : settings.negativeTtlMs };
    } catch (error) {
      return { answer: answerFromError(error), ttlMs: settings.negativeTtlMs };
    }
  }

  async function readStore(kind: DnsKind, name: string): Promise<CachedAnswer | null> {
    if (!store) return null;
    try {
      // A table slower than a DNS try is not worth waiting for: ask the network instead.
      const fact = await beforeDeadline(store.get<unknown>(name, dnsFactKind(kind), now()), settings.timeoutMs);
      if (!fact || !isSettledAnswer(kind, fact.value)) return null;
      return { answer: fact.value, expiresAt: fact.expiresAt, persisted: true };
    } catch (error) {
      onError(error);
      return null;
    }
  }

  /** Table, then network; a settled answer goes to memory. Shared by concurrent identical questions. */
  async function resolve(kind: DnsKind, name: string, key: string): Promise<CachedAnswer | DnsAnswer<unknown>> {
    const stored = await readStore(kind, name);
    if (stored) {
      memory.set(key, stored, stored.expiresAt);
      return stored;
    }
    const { answer, ttlMs } = await query(kind, name);
    if (answer.status === 'error') return answer;
    const entry: CachedAnswer = { answer, expiresAt: now() + Math.min(ttlMs, settings.maxTtlMs), persisted: false };
    if (ttlMs > 0) memory.set(key, entry, entry.expiresAt);
    return entry;
  }

  function persist(kind: DnsKind, name: string, entry: CachedAnswer): void {
    const at = now();
    if (!store || entry.persisted || entry.expiresAt <= at) return;
    entry.persisted = true;
    const write = store
      .put(name, dnsFactKind(kind), entry.answer, entry.expiresAt - at, at)
      .catch((error: unknown) => {
        entry.persisted = false;
        onError(error);
      })
      .finally(() => writes.delete(write));
    writes.add(write);
  }

  async function lookup<K extends DnsKind>(kind: K, domain: string, request: DnsRequest): Promise<DnsAnswer<RecordOf<K>>> {
    try {
      const name = typeof domain === 'string' ? lookupName(domain) : null;
      if (name === null) return INVALID_NAME;
      const key = `${kind}:${name}`;
      const at = now();
      // A remembered answer costs nothing, so it is given even past the deadline.
      const hit = memory.get(key, at);
      if (hit) {
        if (request.persist) persist(kind, name, hit.value);
        return hit.value.answer as DnsAnswer<RecordOf<K>>;
      }
      if (at >= request.deadline) return BUDGET;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = resolve(kind, name, key).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const result = await beforeDeadline(pending, request.deadline - at);
      if (result === undefined) return BUDGET;
      if (!('answer' in result)) return result as DnsAnswer<RecordOf<K>>;
      if (request.persist) persist(kind, name, result);
      return result.answer as DnsAnswer<RecordOf<K>>;
    } catch (error) {
      onError(error);
      return { status: 'error', reason: 'internal error' };
    }
  }

  return {
    forRequest(request) {
      return {
        mx: (domain) => lookup('mx', domain, request),
        a: (domain) => lookup('a', domain, request),
        aaaa: (domain) => lookup('aaaa', domain, request),
      };
    },
    async flush() {
      while (writes.size > 0) await Promise.all([...writes]);
    },
    close() {
      resolver.cancel();
    },
  };
}

/** A stored value is trusted only when it has the shape we write. */
function isSettledAnswer(kind: DnsKind, value: unknown): value is Settled<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const { status, records } = value as { status?: unknown; records?: unknown };
  if (status === 'nxdomain' || status === 'nodata') return true;
  if (status !== 'ok' || !Array.isArray(records)) return false;
  if (kind !== 'mx') return records.every((record) => typeof record === 'string');
  return records.every(
    (record: unknown) =>
      typeof record === 'object' && record !== null && typeof (record as MxRecord).exchange === 'string' && typeof (record as MxRecord).priority === 'number',
  );
}

function settingsOf(options: DnsOptions): DnsSettings {
  const settings = { ...DNS_DEFAULTS };
  for (const key of Object.keys(DNS_DEFAULTS) as (keyof DnsSettings)[]) {
    const value = options[key];
    if (typeof value === 'number' && Number.isFinite(value)) settings[key] = value;
  }
  return settings;
}
