// Whether a domain serves a website: resolve the name ourselves (host-addresses.ts), refuse it when any
// address is not public unicast (address-guard.ts), then ask `HEAD /` over HTTPS and HTTP at once,
// connecting only to the vetted addresses (a pinned `lookup`, so no second resolution can differ).
//
//   true     an answer 2xx, 401, 403, or a redirect to the same host or its www. twin
//   false    no address for the name (nor its www.), nothing listening (connection refused), no TLS
//            where HTTPS was asked, another 4xx (404, 410 …), or a redirect to another host
//   unknown  timeout, 5xx, 429, resolver failure, a refused address, checks off, budget spent
// Redirects are never followed. Answers go through the shared cached lookup (cached-lookup.ts). A
// request waits until its budget signal aborts; the probe runs up to `timeoutMs`, so a slow site's
// answer still warms the cache for the next request.
//
// Options (the composition root maps the environment onto them):
//   enabled    WEB_CHECKS=off → false: every probe answers "unknown" without any I/O; default on
//   timeoutMs  WEB_TIMEOUT_MS: time one probe may take, resolution included; 1500
//   ttlMs      WEB_CACHE_TTL_SECONDS × 1000: how long true/false is kept; 1 day
//   servers    DNS_SERVERS: resolve names there; default: the system resolver (getaddrinfo, /etc/hosts)

import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { untilAborted } from '../abort.js';
import type { LookupResult, WebsiteProbe } from '../engine/plugin.js';
import { hostName, isAddressLiteral } from '../host-name.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { type AddressPolicy, refusalOfAny } from './address-guard.js';
import { createCachedLookup, type LookupRequest } from './cached-lookup.js';
import { createHostResolver, errorCodes, type HostResolver, pinnedLookup } from './host-addresses.js';
import { settingsFrom } from './settings.js';

/** Domain facts kind: true or false. */
export const WEBSITE_FACT = 'web:has_website';

export interface WebsiteSettings {
  timeoutMs: number;
  /** How long an answer (true or false) is kept. */
  ttlMs: number;
  /** How long an unknown outcome is remembered in memory; never persisted. */
  errorTtlMs: number;
  /** Domains remembered in memory (least recently used go first). */
  maxEntries: number;
  /** Probes running at once across requests; past it a probe answers "unknown". */
  maxInFlight: number;
}

export const WEBSITE_DEFAULTS: Readonly<WebsiteSettings> = {
  timeoutMs: 1500,
  ttlMs: 86_400_000,
  errorTtlMs: 60_000,
  maxEntries: 10_000,
  maxInFlight: 64,
};

export interface WebsiteOptions extends Partial<WebsiteSettings> {
  /** False (WEB_CHECKS=off): every probe answers "unknown" at once. */
  enabled?: boolean;
  /** Name servers (DNS_SERVERS form: `ip`, `ip:port`, `[ipv6]:port`); absent or empty: the system resolver. */
  servers?: readonly string[];
  /** The store's domain facts: read on a memory miss, written for requests that persist. */
  domainFacts?: Pick<DomainFacts, 'get' | 'put'> | null;
  now?: () => number;
  /** Told about domain-facts read/write failures (the probe goes on without the table). */
  onError?: (error: unknown) => void;
  userAgent?: string;
  /**
   * TESTS ONLY: lets loopback addresses through the address guard so a probe can reach a test server.
   * Never set in production; no configuration variable sets it.
   */
  allowLoopbackForTests?: boolean;
  /** TESTS ONLY: the ports probed instead of 443 and 80. */
  portsForTests?: { https: number; http: number };
}

export interface WebsiteService {
  /** The probes of one request, bound to its budget signal and persist flag. */
  forRequest(request: LookupRequest): WebsiteProbe;
  /** Resolves when every domain-facts write started so far has finished (tests, shutdown). */
  flush(): Promise<void>;
  /** Aborts the probes in flight (they answer "unknown"); for shutdown. */
  close(): void;
}

/** One scheme's verdict: the site answers, it does not, or we cannot tell (and why). */
type Verdict = { kind: 'yes' } | { kind: 'no'; reason: string } | { kind: 'unknown'; reason: string };

const YES: Verdict = { kind: 'yes' };
const unknown = (reason: string): LookupResult<boolean> => ({ status: 'unknown', reason });
const DEFAULT_USER_AGENT = 'email-trust website check';

/** Lower-case host name (letters, digits, hyphen, underscore), or null for anything else — IP literals in every notation included. */
export function probeName(domain: string): string | null {
  const name = hostName(domain, 'dns');
  return name !== null && !isAddressLiteral(name) ? name : null;
}

/** Whether a `Location` stays on `host`, its www. twin, or the apex of a www. host. */
function sameSite(location: string, base: string, host: string): boolean {
  let target: string;
  try {
    target = new URL(location, base).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (target.endsWith('.')) target = target.slice(0, -1);
  return target === host || target === `www.${host}` || host === `www.${target}`;
}

function verdictOf(status: number, location: string | undefined, base: string, host: string): Verdict {
  if ((status >= 200 && status < 300) || status === 401 || status === 403) return YES;
  if (status >= 300 && status < 400) {
    if (location === undefined || sameSite(location, base, host)) return YES;
    return { kind: 'no', reason: 'redirects to another host' };
  }
  if (status === 429 || status >= 500) return { kind: 'unknown', reason: `HTTP ${status}` };
  return { kind: 'no', reason: `HTTP ${status}` };
}

/** What every probe shares: how it resolves and connects, which addresses it may reach, shutdown. */
interface Prober {
  settings: WebsiteSettings;
  resolver: HostResolver;
  policy: AddressPolicy;
  ports: { https: number; http: number };
  userAgent: string;
  /** Aborted by close(). */
  closing: AbortSignal;
}

type Scheme = 'https' | 'http';

/** The probe of one name within `timeoutMs`: its hosts resolved, vetted, then asked. */
async function probe(prober: Prober, name: string): Promise<LookupResult<boolean>> {
  const signal = AbortSignal.any([AbortSignal.timeout(prober.settings.timeoutMs), prober.closing]);
  // A name without an address may still have its site on www. (the www. of a www. name is not tried).
  const hosts = name.startsWith('www.') ? [name] : [name, `www.${name}`];
  for (const host of hosts) {
    const resolved = await untilAborted(prober.resolver.resolve(host), signal);
    if (resolved === undefined) return unknown(prober.closing.aborted ? 'closed' : 'timeout');
    if ('none' in resolved) continue;
    if ('error' in resolved) return unknown(resolved.error);
    const refusal = refusalOfAny(
      resolved.addresses.map((a) => a.address),
      prober.policy,
    );
    if (refusal !== null) return unknown(`address refused: ${refusal}`);
    return both(prober, host, resolved.addresses, signal);
  }
  return { status: 'ok', value: false };
}

/** HTTPS and HTTP at once: the first "yes" wins and stops the other; "no" needs both to say no. */
async function both(prober: Prober, host: string, addresses: LookupAddress[], signal: AbortSignal): Promise<LookupResult<boolean>> {
  const lookup = pinnedLookup(addresses);
  const decided = new AbortController();
  const attempts = AbortSignal.any([signal, decided.signal]);
  const verdicts = await Promise.all(
    (['https', 'http'] as const).map(async (scheme) => {
      const verdict = await attempt(prober, scheme, host, lookup, attempts);
      if (verdict.kind === 'yes') decided.abort();
      return verdict;
    }),
  );
  if (verdicts.some((v) => v.kind === 'yes')) return { status: 'ok', value: true };
  const unsure = verdicts.find((v) => v.kind === 'unknown');
  return unsure ? unknown(unsure.reason) : { status: 'ok', value: false };
}

/** One scheme's verdict: HEAD, or GET when the server does not allow HEAD. */
async function attempt(prober: Prober, scheme: Scheme, host: string, lookup: LookupFunction, signal: AbortSignal): Promise<Verdict> {
  const base = `${scheme}://${host}/`;
  try {
    let reply = await exchange(prober, scheme, host, 'HEAD', lookup, signal);
    if (reply.status === 405 || reply.status === 501) reply = await exchange(prober, scheme, host, 'GET', lookup, signal);
    return verdictOf(reply.status, reply.location, base, host);
  } catch (error) {
    if (signal.aborted) return { kind: 'unknown', reason: prober.closing.aborted ? 'closed' : 'timeout' };
    const codes = errorCodes(error);
    if (codes.every((code) => code === 'ECONNREFUSED')) return { kind: 'no', reason: `${scheme}: connection refused` };
    if (scheme === 'https' && codes.some((code) => code === 'EPROTO' || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS'))) {
      return { kind: 'no', reason: 'https: no TLS' };
    }
    return { kind: 'unknown', reason: `${scheme}: ${codes.join(', ')}` };
  }
}

/** One request to `/`; resolves with the status and Location, rejects on a connection error. */
function exchange(prober: Prober, scheme: Scheme, host: string, method: 'HEAD' | 'GET', lookup: LookupFunction, signal: AbortSignal) {
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const request = (scheme === 'https' ? https : http).request(
      {
        host,
        port: prober.ports[scheme],
        method,
        path: '/',
        headers: { 'user-agent': prober.userAgent, accept: '*/*', connection: 'close' },
        agent: false,
        lookup,
        signal,
        // We only learn whether a server answers; nothing is sent and nothing read is trusted.
        rejectUnauthorized: false,
      },
      (response) => {
        resolve({ status: response.statusCode ?? 0, location: response.headers.location });
        response.destroy();
      },
    );
    request.on('error', reject);
    request.end();
  });
}

export function createWebsiteProbe(options: WebsiteOptions = {}): WebsiteService {
  const settings = settingsFrom(WEBSITE_DEFAULTS, options);
  const enabled = options.enabled ?? true;
  const closing = new AbortController();
  const prober: Prober = {
    settings,
    resolver: createHostResolver(options.servers, settings.timeoutMs),
    policy: { allowLoopbackForTests: options.allowLoopbackForTests === true },
    ports: options.portsForTests ?? { https: 443, http: 80 },
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    closing: closing.signal,
  };

  const cache = createCachedLookup<typeof WEBSITE_FACT, LookupResult<boolean>>({
    maxEntries: settings.maxEntries,
    maxInFlight: settings.maxInFlight,
    busyReason: 'too many website probes at once',
    domainFacts: options.domainFacts ?? null,
    now: options.now ?? Date.now,
    onError: options.onError ?? (() => undefined),
    unanswered: unknown,
    fromStored: (value) => (typeof value === 'boolean' ? { answer: { status: 'ok', value }, stored: value } : null),
    async ask(name) {
      const answer = await probe(prober, name);
      return answer.status === 'ok' ? { answer, stored: answer.value, ttlMs: settings.ttlMs } : { answer, stored: null, ttlMs: settings.errorTtlMs };
    },
  });

  return {
    forRequest(request) {
      return {
        async hasWebsite(domain) {
          if (!enabled) return unknown('website checks are off');
          const name = typeof domain === 'string' ? probeName(domain) : null;
          return name === null ? unknown('not a host name') : cache.lookup(WEBSITE_FACT, name, request);
        },
      };
    },
    flush: () => cache.flush(),
    close() {
      closing.abort();
      prober.resolver.cancel();
    },
  };
}
