// Registration dates over RDAP (RFC 9082/9083): the server for a TLD comes from IANA's bootstrap file
// (rdap-bootstrap.ts), the date from the `registration` event. Answers go through the shared cached
// lookup (cached-lookup.ts: memory, domain facts table, one question per domain, the request's budget).
// A request waits for an answer until its budget signal aborts; the question itself runs up to
// `timeoutMs`, so a slow registry's answer still warms the cache for the next request.
//
// Options (the composition root maps the environment onto them):
//   baseUrl        RDAP_BASE_URL        one RDAP base URL for every TLD; default: per TLD, from the bootstrap file
//   bootstrapFile  RDAP_BOOTSTRAP_FILE  an RFC 9224 dns.json; default data/rdap-dns.json if installed, else the shipped copy
//   timeoutMs      RDAP_TIMEOUT_MS      time one question may take (redirects included); 3000
//   ttlMs          RDAP_CACHE_TTL_SECONDS × 1000: how long a registration date is kept; 7 days
//   servers        DNS_SERVERS          resolve registry host names there; default: the system resolver
// Nothing here throws to a caller: failures are "unknown" answers.
//
// Outbound requests go only to public addresses, as the website check's (address-guard.ts): each hop's
// host is resolved by us, refused when any address is private, loopback, link-local or a metadata
// service, and connected to through those very addresses (a pinned lookup). A redirect is followed at
// most MAX_REDIRECTS times, over HTTPS (or on the same origin). The one exception is the origin of
// RDAP_BASE_URL, which the operator chose (possibly a private RDAP proxy); where it redirects elsewhere,
// the guard applies again.

import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { untilAborted } from '../abort.js';
import type { LookupResult, RegistrationLookup } from '../engine/plugin.js';
import { hostName, isAddressLiteral } from '../host-name.js';
import type { DomainFacts } from '../store/domain-facts.js';
import { type AddressPolicy, refusalOfAny } from './address-guard.js';
import { createCachedLookup, type LookupRequest } from './cached-lookup.js';
import { createHostResolver, type HostResolver, pinnedLookup } from './host-addresses.js';
import { baseFor, defaultBootstrapFile, loadBootstrap, preferredUrl } from './rdap-bootstrap.js';
import { settingsFrom } from './settings.js';

/** Domain facts kind: the registration time (ms), or why there is none ('not_found', 'no_registration_event'). */
export const RDAP_FACT = 'rdap:registered';

const DAY = 86_400_000;
/** Before the first .com registration: a placeholder date, not a registration. */
const EARLIEST_REGISTRATION = Date.UTC(1985, 0, 1);
const MAX_REDIRECTS = 3;

export interface RegistrationSettings {
  timeoutMs: number;
  /** How long a registration date (or a reply without one) is kept. */
  ttlMs: number;
  /** How long "not found" (HTTP 404) is kept: the name may be registered tomorrow. */
  notFoundTtlMs: number;
  /** How long a failure (timeout, 5xx, bad JSON) is remembered in memory; failures are never persisted. */
  errorTtlMs: number;
  /** Largest response body read; a larger one is a failure. */
  maxBodyBytes: number;
  /** Domains remembered in memory (least recently used go first). */
  maxEntries: number;
  /** Questions running at once across requests; past it a lookup answers "unknown". */
  maxInFlight: number;
}

export const RDAP_DEFAULTS: Readonly<RegistrationSettings> = {
  timeoutMs: 3000,
  ttlMs: 7 * DAY,
  notFoundTtlMs: DAY,
  errorTtlMs: 60_000,
  maxBodyBytes: 256 * 1024,
  maxEntries: 10_000,
  maxInFlight: 64,
};

export interface RegistrationOptions extends Partial<RegistrationSettings> {
  /** One RDAP base URL for every TLD (a private RDAP proxy; the tests' local server). */
  baseUrl?: string;
  /** An RFC 9224 bootstrap file (IANA's dns.json as downloaded) instead of the shipped copy. */
  bootstrapFile?: string;
  /** The store's domain facts: read on a memory miss, written for requests that persist. */
  domainFacts?: Pick<DomainFacts, 'get' | 'put'> | null;
  /** Clock (ms since the epoch); injectable for tests. */
  now?: () => number;
  /** Told about domain-facts read/write failures (the lookup goes on without the table). */
  onError?: (error: unknown) => void;
  /** Name servers (DNS_SERVERS form) for registry host names; absent or empty: the system resolver. */
  servers?: readonly string[];
  /**
   * TESTS ONLY: lets loopback addresses through the address guard so a lookup can reach a test server
   * named in a bootstrap file or a redirect. Never set in production; no configuration variable sets it.
   */
  allowLoopbackForTests?: boolean;
}

export interface RegistrationService {
  /** The lookups of one request, bound to its budget signal and persist flag. */
  forRequest(request: LookupRequest): RegistrationLookup;
  /** Resolves when every domain-facts write started so far has finished (tests, shutdown). */
  flush(): Promise<void>;
  /** Aborts the questions in flight (they answer "unknown"); for shutdown. */
  close(): void;
}

/** What the table keeps: a date, or why the registry gave none. */
type Stored = number | 'not_found' | 'no_registration_event';

interface Outcome {
  answer: LookupResult<number>;
  /** null for failures, which are not persisted. */
  stored: Stored | null;
}

const unknown = (reason: string): LookupResult<number> => ({ status: 'unknown', reason });

/** Lower-case ASCII name of at least two labels, or null (address, Unicode, underscore, empty label, too long). */
function domainName(domain: string): string | null {
  const name = hostName(domain, 'ldh');
  return name?.includes('.') && !isAddressLiteral(name) ? name : null;
}

/** Registration date from an RDAP domain object: the `registration` event's date. */
export function registrationDate(body: unknown, now: number): Outcome {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return failure('RDAP reply is not an object');
  const events = (body as { events?: unknown }).events;
  const event = Array.isArray(events)
    ? (events as { eventAction?: unknown; eventDate?: unknown }[]).find(
        (e) => typeof e?.eventAction === 'string' && e.eventAction.toLowerCase() === 'registration',
      )
    : undefined;
  const at = typeof event?.eventDate === 'string' ? Date.parse(event.eventDate) : Number.NaN;
  if (!Number.isFinite(at) || at < EARLIEST_REGISTRATION) return settled('no_registration_event');
  if (at > now + DAY) return failure('registration date in the future');
  return settled(at);
}

function settled(stored: Stored): Outcome {
  if (typeof stored === 'number') return { answer: { status: 'ok', value: stored }, stored };
  return { answer: unknown(stored === 'not_found' ? 'not found' : 'no registration event'), stored };
}

function failure(reason: string): Outcome {
  return { answer: unknown(reason), stored: null };
}

function isStored(value: unknown): value is Stored {
  return (typeof value === 'number' && Number.isFinite(value)) || value === 'not_found' || value === 'no_registration_event';
}

/** Reads a body up to `max` bytes; null when it is larger. */
async function readCapped(response: IncomingMessage, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > max) {
      response.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Seconds of a Retry-After header (delta form), bounded; the default when absent or a date. */
function retryAfterMs(header: string | null): number {
  const seconds = header !== null && /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) : 30;
  return Math.min(Math.max(seconds, 1), 300) * 1000;
}

/** What every RDAP question shares: the settings, the clock, the registries backing off, shutdown. */
interface Registries {
  settings: RegistrationSettings;
  now: () => number;
  /** Origins that answered 429, left alone until the time given. */
  backoff: Map<string, number>;
  /** Aborted by close(). */
  closing: AbortSignal;
  resolver: HostResolver;
  policy: AddressPolicy;
  /** The origin of RDAP_BASE_URL, which the operator chose: asked without the address guard. */
  trustedOrigin: string | null;
}

/** One question to a registry, within `timeoutMs`; never throws. */
async function askRegistry(url: string, registries: Registries): Promise<Outcome> {
  const signal = AbortSignal.any([AbortSignal.timeout(registries.settings.timeoutMs), registries.closing]);
  try {
    const reply = await follow(new URL(url), signal, registries);
    return 'answer' in reply ? reply : await outcomeOf(reply, registries);
  } catch (error) {
    if (signal.aborted) return failure(registries.closing.aborted ? 'RDAP lookups closed' : 'RDAP timeout');
    return failure(`RDAP request failed: ${(error as Error).message}`);
  }
}

/** Fetches `url`, following up to MAX_REDIRECTS redirects: the last reply, or the outcome that ends the question. */
async function follow(url: URL, signal: AbortSignal, registries: Registries): Promise<IncomingMessage | Outcome> {
  const { now, backoff } = registries;
  let target = url;
  for (let hop = 0; ; hop++) {
    if ((backoff.get(target.origin) ?? 0) > now()) return failure('RDAP server asked us to slow down');
    const addresses = target.origin === registries.trustedOrigin ? null : await vetted(target, signal, registries);
    if (addresses !== null && 'answer' in addresses) return addresses;
    const response = await get(target, addresses, signal);
    const location = response.headers.location;
    if (response.statusCode === undefined || response.statusCode < 300 || response.statusCode >= 400 || location === undefined) {
      if (response.statusCode === 429) backoff.set(target.origin, now() + retryAfterMs(response.headers['retry-after'] ?? null));
      return response;
    }
    response.destroy();
    if (hop >= MAX_REDIRECTS) return failure(`RDAP: more than ${MAX_REDIRECTS} redirects`);
    const next = new URL(location, target);
    // A registry may send us on over HTTPS, or elsewhere on its own origin; nowhere else.
    if (next.protocol !== 'https:' && next.origin !== target.origin) return failure('RDAP redirect to a non-HTTPS URL');
    target = next;
  }
}

/** The addresses `url`'s host may be reached at, resolved by us and checked by the guard, or why not. */
async function vetted(url: URL, signal: AbortSignal, { resolver, policy }: Registries): Promise<LookupAddress[] | Outcome> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    const resolved = await untilAborted(resolver.resolve(host), signal);
    if (resolved === undefined) throw new Error('aborted while resolving');
    if ('none' in resolved) return failure(`RDAP server ${host} has no address`);
    if ('error' in resolved) return failure(`RDAP server ${host}: ${resolved.error}`);
    addresses = resolved.addresses;
  }
  const refusal = refusalOfAny(
    addresses.map((a) => a.address),
    policy,
  );
  return refusal === null ? addresses : failure(`RDAP address refused: ${refusal}`);
}

/** GET `url`, connecting to `addresses` only (or, for the trusted origin, wherever its name resolves). */
function get(url: URL, addresses: LookupAddress[] | null, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/rdap+json, application/json', 'user-agent': 'email-trust' },
        agent: false,
        signal,
        ...(addresses === null ? {} : { lookup: pinnedLookup(addresses) }),
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
}

/** What a registry's last reply says of the registration. */
async function outcomeOf(response: IncomingMessage, { settings, now }: Registries): Promise<Outcome> {
  if (response.statusCode !== 200) {
    response.destroy();
    return response.statusCode === 404 ? settled('not_found') : failure(`RDAP server answered HTTP ${response.statusCode}`);
  }
  const text = await readCapped(response, settings.maxBodyBytes);
  if (text === null) return failure('RDAP reply too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failure('RDAP reply is not JSON');
  }
  return registrationDate(body, now());
}

export function createRegistrationLookup(options: RegistrationOptions = {}): RegistrationService {
  const settings = settingsFrom(RDAP_DEFAULTS, options);
  const forcedBase = options.baseUrl === undefined ? null : preferredUrl([options.baseUrl]);
  if (options.baseUrl !== undefined && forcedBase === null) throw new Error(`RDAP base URL "${options.baseUrl}" is not an http(s) URL`);
  const bases = forcedBase === null ? loadBootstrap(options.bootstrapFile ?? defaultBootstrapFile()) : new Map<string, string>();
  const closing = new AbortController();
  const now = options.now ?? Date.now;
  const registries: Registries = {
    settings,
    now,
    backoff: new Map(),
    closing: closing.signal,
    resolver: createHostResolver(options.servers, settings.timeoutMs),
    policy: { allowLoopbackForTests: options.allowLoopbackForTests === true },
    trustedOrigin: forcedBase === null ? null : new URL(forcedBase).origin,
  };

  const ttlOf = (stored: Stored | null): number => {
    if (stored === null) return settings.errorTtlMs;
    return stored === 'not_found' ? settings.notFoundTtlMs : settings.ttlMs;
  };

  const cache = createCachedLookup<typeof RDAP_FACT, LookupResult<number>>({
    maxEntries: settings.maxEntries,
    maxInFlight: settings.maxInFlight,
    busyReason: 'too many RDAP lookups at once',
    domainFacts: options.domainFacts ?? null,
    now,
    onError: options.onError ?? (() => undefined),
    unanswered: unknown,
    fromStored: (value) => (isStored(value) ? settled(value) : null),
    async ask(name) {
      const base = forcedBase ?? baseFor(bases, name);
      const outcome = base === null ? failure('no RDAP service for this TLD') : await askRegistry(`${base}domain/${name}`, registries);
      return { ...outcome, ttlMs: ttlOf(outcome.stored) };
    },
  });

  return {
    forRequest(request) {
      return {
        async registered(domain) {
          const name = typeof domain === 'string' ? domainName(domain) : null;
          return name === null ? unknown('not a domain name') : cache.lookup(RDAP_FACT, name, request);
        },
      };
    },
    flush: () => cache.flush(),
    close() {
      closing.abort();
      registries.resolver.cancel();
    },
  };
}
