// Whether a domain serves a website: resolve the name ourselves, refuse it when any address is not
// public unicast (address-guard.ts), then ask `HEAD /` over HTTPS and HTTP at once, connecting only to
// the vetted addresses (a pinned `lookup`, so no second resolution can differ: DNS rebinding).
//
//   true     an answer 2xx, 401, 403, or a redirect to the same host or its www. twin
//   false    no address for the name (nor its www.), nothing listening (connection refused), no TLS
//            where HTTPS was asked, another 4xx (404, 410 …), or a redirect to another host
//   unknown  timeout, 5xx, 429, resolver failure, a refused address, checks off, budget spent
// Redirects are never followed. A request waits until its deadline; the probe runs up to `timeoutMs`,
// so a slow site's answer still warms the cache for the next request.
//
// Options (the composition root maps the environment onto them):
//   enabled    WEB_CHECKS=off → false: every probe answers "unknown" without any I/O; default on
//   timeoutMs  WEB_TIMEOUT_MS: time one probe may take, resolution included; 1500
//   ttlMs      WEB_CACHE_TTL_SECONDS × 1000: how long true/false is kept; 1 day
//   servers    DNS_SERVERS: resolve names there; default: the system resolver (getaddrinfo, /etc/hosts)

import type { LookupAddress } from 'node:dns';
import { Resolver, lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { LookupResult, WebsiteProbe } from '../engine/plugin.js';
import { isAddressLiteral } from '../host-name.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { refusalOfAny } from './address-guard.js';
import { createCachedLookup } from './cached-lookup.js';

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

export interface WebsiteRequest {
  /** Write answers to the domain facts table (false for soft_check requests). */
  persist: boolean;
  /** Milliseconds since the epoch after which a probe not yet answered gives "unknown" (reason `budget`). */
  deadline: number;
}

export interface WebsiteService {
  /** The probes of one request, bound to its deadline and persist flag. */
  forRequest(request: WebsiteRequest): WebsiteProbe;
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
/** Resolution outcome: addresses, no address at all (NXDOMAIN, NODATA), or a failure. */
type Resolved = { addresses: LookupAddress[] } | { none: true } | { error: string };

/** Lower-case host name (LDH labels), or null for anything else — IP literals in every notation included. */
export function probeName(domain: string): string | null {
  const name = (domain.endsWith('.') ? domain.slice(0, -1) : domain).toLowerCase();
  if (name.length === 0 || name.length > 253 || isAddressLiteral(name)) return null;
  for (const label of name.split('.')) {
    if (label.length === 0 || label.length > 63 || !/^[a-z0-9_-]+$/.test(label)) return null;
  }
  return name;
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

function errorCodes(error: unknown): string[] {
  const inner = error instanceof AggregateError ? error.errors : [error];
  return inner.map((e: unknown) => String((e as { code?: unknown } | null)?.code ?? 'error'));
}

/** A pinned `lookup`: answers with the vetted addresses only, whatever the name. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const first = usable[0];
    if (options.all) callback(null, usable);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no vetted address of that family'), { code: 'ENOTFOUND' }));
  }) as LookupFunction;
}

export function createWebsiteProbe(options: WebsiteOptions = {}): WebsiteService {
  const settings = settingsOf(options);
  const enabled = options.enabled ?? true;
  const now = options.now ?? Date.now;
  const store = options.domainFacts ?? null;
  const onError = options.onError ?? (() => undefined);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const policy = { allowLoopbackForTests: options.allowLoopbackForTests === true };
  const ports = options.portsForTests ?? { https: 443, http: 80 };
  let resolver: Resolver | null = null;
  if (options.servers && options.servers.length > 0) {
    resolver = new Resolver({ timeout: Math.min(500, settings.timeoutMs), tries: 2 });
    resolver.setServers([...options.servers]);
  }

  /** Probes running, so close() can stop them. */
  const active = new Set<AbortController>();
  let closed = false;

  async function resolveHost(host: string): Promise<Resolved> {
    const absent = (codes: string[]) => codes.every((code) => code === 'ENOTFOUND' || code === 'ENODATA');
    if (resolver === null) {
      try {
        const found = await systemLookup(host, { all: true });
        return found.length > 0 ? { addresses: found } : { none: true };
      } catch (error) {
        const codes = errorCodes(error);
        return absent(codes) ? { none: true } : { error: `resolver: ${codes.join(', ')}` };
      }
    }
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return { addresses };
    const codes = [v4, v6].flatMap((r) => (r.status === 'rejected' ? errorCodes(r.reason) : []));
    return absent(codes) ? { none: true } : { error: `resolver: ${codes.join(', ')}` };
  }

  /** One request to `/`; resolves with the status and Location, rejects on a connection error. */
  function exchange(scheme: 'https' | 'http', host: string, method: 'HEAD' | 'GET', lookup: LookupFunction, signal: AbortSignal) {
    return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const request = (scheme === 'https' ? https : http).request(
        {
          host,
          port: ports[scheme],
          method,
          path: '/',
          headers: { 'user-agent': userAgent, accept: '*/*', connection: 'close' },
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

  async function attempt(scheme: 'https' | 'http', host: string, lookup: LookupFunction, signal: AbortSignal): Promise<Verdict> {
    const base = `${scheme}://${host}/`;
    try {
      let reply = await exchange(scheme, host, 'HEAD', lookup, signal);
      if (reply.status === 405 || reply.status === 501) reply = await exchange(scheme, host, 'GET', lookup, signal);
      return verdictOf(reply.status, reply.location, base, host);
    } catch (error) {
      if (signal.aborted) return { kind: 'unknown', reason: closed ? 'closed' : 'timeout' };
      const codes = errorCodes(error);
      if (codes.every((code) => code === 'ECONNREFUSED')) return { kind: 'no', reason: `${scheme}: connection refused` };
      if (scheme === 'https' && codes.some((code) => code === 'EPROTO' || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS'))) {
        return { kind: 'no', reason: 'https: no TLS' };
      }
      return { kind: 'unknown', reason: `${scheme}: ${codes.join(', ')}` };
    }
  }

  /** HTTPS and HTTP at once: the first "yes" wins and stops the other; "no" needs both to say no. */
  async function both(host: string, addresses: LookupAddress[], controller: AbortController): Promise<LookupResult<boolean>> {
    const lookup = pinnedLookup(addresses);
    const verdicts = await Promise.all(
      (['https', 'http'] as const).map(async (scheme) => {
        const verdict = await attempt(scheme, host, lookup, controller.signal);
        if (verdict.kind === 'yes') controller.abort();
        return verdict;
      }),
    );
    if (verdicts.some((v) => v.kind === 'yes')) return { status: 'ok', value: true };
    const unsure = verdicts.find((v) => v.kind === 'unknown');
    return unsure ? unknown(unsure.reason) : { status: 'ok', value: false };
  }

  async function probe(name: string): Promise<LookupResult<boolean>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
    active.add(controller);
    const stopped = new Promise<Resolved>((resolve) => {
      controller.signal.addEventListener('abort', () => resolve({ error: closed ? 'closed' : 'timeout' }), { once: true });
    });
    try {
      // A name without an address may still have its site on www. (the www. of a www. name is not tried).
      const hosts = name.startsWith('www.') ? [name] : [name, `www.${name}`];
      for (const host of hosts) {
        const resolved = await Promise.race([resolveHost(host), stopped]);
        if ('none' in resolved) continue;
        if ('error' in resolved) return unknown(resolved.error);
        const refusal = refusalOfAny(
          resolved.addresses.map((a) => a.address),
          policy,
        );
        if (refusal !== null) return unknown(`address refused: ${refusal}`);
        return await both(host, resolved.addresses, controller);
      }
      return { status: 'ok', value: false };
    } finally {
      clearTimeout(timer);
      active.delete(controller);
    }
  }

  const cache = createCachedLookup<boolean>({
    kind: WEBSITE_FACT,
    maxEntries: settings.maxEntries,
    maxInFlight: settings.maxInFlight,
    busyReason: 'too many website probes at once',
    domainFacts: store,
    now,
    onError,
    fromStored: (value) => (typeof value === 'boolean' ? { result: { status: 'ok', value }, stored: value } : null),
    async ask(name) {
      const result = await probe(name);
      return result.status === 'ok' ? { result, stored: result.value, ttlMs: settings.ttlMs } : { result, stored: null, ttlMs: settings.errorTtlMs };
    },
  });

  async function hasWebsite(domain: string, request: WebsiteRequest): Promise<LookupResult<boolean>> {
    if (!enabled) return unknown('website checks are off');
    const name = typeof domain === 'string' ? probeName(domain) : null;
    if (name === null) return unknown('not a host name');
    return cache.lookup(name, request);
  }

  return {
    forRequest(request) {
      return { hasWebsite: (domain) => hasWebsite(domain, request) };
    },
    flush: () => cache.flush(),
    close() {
      closed = true;
      for (const controller of active) controller.abort();
      resolver?.cancel();
    },
  };
}

function settingsOf(options: WebsiteOptions): WebsiteSettings {
  const settings = { ...WEBSITE_DEFAULTS };
  for (const key of Object.keys(WEBSITE_DEFAULTS) as (keyof WebsiteSettings)[]) {
    const value = options[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) settings[key] = value;
  }
  return settings;
}
