// Configuration from environment variables, validated at start: a bad value names its variable.
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseAddress, parseDnsServers } from './address-text.js';
import { hostName, isAddressLiteral, MAX_DOMAIN_LENGTH } from './host-name.js';
import { policiesDir as defaultPoliciesDir } from './paths.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** POLICIES_DIR (searched before the shipped policies), or the shipped folder when unset (policy/book.ts). */
  policiesDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Which X-Forwarded-For entries are believed (src/service/client-ip.ts). */
  trustProxy: TrustProxy;
  intelligenceForm: 'A' | 'B';
  /** Requests per second, except failedAuth: failed authentications per client per minute. 0 turns a limit off. */
  rateLimits: { verify: number; ip: number; intelligence: number; fingerprint: number; feedback: number; failedAuth: number };
  /** Sealing keys for fingerprints: key id → 32-byte key. The first one seals; all of them open. */
  fingerprintKeys: { id: string; key: Buffer }[];
  fingerprintTtlSeconds: number;
  network: NetworkConfig;
  /** Events older than this are deleted in the background (velocity history). */
  velocityRetentionDays: number;
  server: ServerLimits;
  /** Where rate limits and quota counts are shared by every instance (REDIS_URL); null: in this process (or the cluster's primary). */
  redis: { url: string; prefix: string; timeoutMs: number } | null;
  /** Processes `serve` runs, sharing one port (node:cluster); 1 runs the service in the process itself. */
  workers: number;
  /** Operations: GET /metrics and shutdown (src/http/metrics.ts, cli/commands/serve.ts). */
  ops: OpsConfig;
  /** EXPLAIN_PROJECTS: names or ids of the projects besides sandbox ones whose verify calls may ask for show_explain. */
  explainProjects: readonly string[];
  /** PLAYGROUND: the policy playground at /playground and its /v1/playground/* calls (sandbox keys only); off: 404. */
  playground: boolean;
  /**
   * SHARED_REPUTATION: labels of every project that shares its reputation (projects.shares_reputation) are
   * also counted under the deployment's shared rows, which those projects' reputation facts read (counts only).
   */
  sharedReputation: boolean;
  /** The lists `email-trust data update` installs, and the limits every download is held to. */
  data: DataConfig;
}

/** DATA_*: where updated data lists go and how they are fetched (src/service/data-update.ts). */
export interface DataConfig {
  /** DATA_DIR: where `data update` installs lists and the plugins look for them first (absolute). */
  dir: string;
  /** DATA_SOURCES_URL: a mirror; each upstream URL is fetched as `<mirror>/<host><path>`. Null: the upstreams. */
  sourcesUrl: string | null;
  /** DATA_FETCH_TIMEOUT_MS: the deadline of one download, body included. */
  fetchTimeoutMs: number;
  /** DATA_MAX_BYTES: a download past this many bytes is refused (counted as it streams). */
  maxBytes: number;
  /** DATA_MAX_SHRINK: an update with this share (percent) fewer entries than the loaded list is refused. */
  maxShrinkPercent: number;
  /** DATA_RELOAD_INTERVAL: `serve` reads the lists again every this many seconds (0: only on SIGHUP). */
  reloadIntervalSeconds: number;
  /** DATA_UPDATE_INTERVAL: `serve` runs `data update` itself soon after start and then every this many seconds, and reloads what it installed (0: never). */
  updateIntervalSeconds: number;
  /** DATA_AGE_CHECK: `serve` warns at start, and /readyz reports `data` degraded, while a list is past its maximum age. */
  ageCheck: boolean;
}

/** DATA_DIR resolved against the working directory (default ./data/lists): the plugins read it at load. */
export function dataDir(env: Env = process.env): string {
  return resolve(env.DATA_DIR?.trim() || './data/lists');
}

/** Where /metrics is served and who may read it; how long a stop waits for requests in flight. */
export interface OpsConfig {
  /** METRICS_PORT: /metrics on its own port (then not on the main one); null: on the main port. */
  metricsPort: number | null;
  /** METRICS_TOKEN: the Bearer token /metrics requires; null: none. */
  metricsToken: string | null;
  /** SHUTDOWN_TIMEOUT_MS: how long SIGTERM/SIGINT wait for requests in flight before cutting them. */
  shutdownTimeoutMs: number;
  /** ACCESS_LOG: one info line per request (off: none; the request id and metrics stay). */
  accessLog: boolean;
}

/** How long a client may take and how many connections it may hold (src/http/server.ts). */
export interface ServerLimits {
  /** The request line and headers must have arrived this long after the connection opened (or the last request ended). */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this; at least headersTimeoutMs. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections over this are dropped as they open. */
  maxConnections: number;
}

/**
 * Who stands in front of the service. `off`: the socket's peer is the client. `hops`: that many proxies
 * append to X-Forwarded-For, so the client is the entry the outermost of them appended. `proxies`: any
 * peer inside these ranges is a proxy, walked past from the right.
 */
export type TrustProxy = { kind: 'off' } | { kind: 'hops'; hops: number } | { kind: 'proxies'; ranges: ProxyRange[] };

/** An address range as ipaddr.js's parseCIDR returns it: [network, prefix length]. */
export type ProxyRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The network checks (DNS, RDAP, website): NETWORK_CHECKS=off turns them all into "not checked". */
export interface NetworkConfig {
  enabled: boolean;
  /** All network work of one request must finish within this many ms; past it facts are unknown. */
  budgetMs: number;
  dnsServers: string[];
  dnsTimeoutMs: number;
  dnsTries: number;
  rdapBaseUrl: string | null;
  rdapBootstrapFile: string | null;
  rdapTimeoutMs: number;
  rdapCacheTtlSeconds: number;
  webChecks: boolean;
  webTimeoutMs: number;
  webCacheTtlSeconds: number;
  /** DNSBL_DOMAIN_ZONES: DNS blocklist zones asked about the address's domain (RHSBL); none by default. */
  dnsblDomainZones: string[];
  /** DNSBL_IP_ZONES: DNS blocklist zones asked about the request's IP; none by default. */
  dnsblIpZones: string[];
  /** DNS_CANARIES: domains that must resolve (network/resolver-check.ts); empty: no self-check. */
  dnsCanaries: string[];
  /** DNS_CHECK_INTERVAL_SECONDS: how often `serve` checks them again (0: only at start). */
  dnsCheckIntervalSeconds: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/email-trust.sqlite';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    databaseUrl: databaseUrl(env),
    policiesDir: policiesFolder(env),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: trustProxy(env),
    intelligenceForm: oneOf(env, 'INTELLIGENCE_FORM', ['A', 'B'] as const, 'B'),
    rateLimits: {
      verify: integer(env, 'RATE_LIMIT_VERIFY', 10, 0, 1_000_000),
      ip: integer(env, 'RATE_LIMIT_IP', 10, 0, 1_000_000),
      intelligence: integer(env, 'RATE_LIMIT_INTELLIGENCE', 10, 0, 1_000_000),
      fingerprint: integer(env, 'RATE_LIMIT_FINGERPRINT', 10, 0, 1_000_000),
      feedback: integer(env, 'RATE_LIMIT_FEEDBACK', 10, 0, 1_000_000),
      failedAuth: integer(env, 'RATE_LIMIT_FAILED_AUTH', 20, 0, 1_000_000),
    },
    fingerprintKeys: fingerprintKeys(env),
    fingerprintTtlSeconds: integer(env, 'FINGERPRINT_TTL_SECONDS', 86_400, 60, 31_536_000),
    velocityRetentionDays: integer(env, 'VELOCITY_RETENTION_DAYS', 30, 1, 3650),
    server: serverLimits(env),
    redis: redisSettings(env),
    workers: workers(env),
    ops: opsConfig(env),
    explainProjects: (env.EXPLAIN_PROJECTS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name.length > 0),
    playground: onOff(env, 'PLAYGROUND', true),
    sharedReputation: onOff(env, 'SHARED_REPUTATION', false),
    data: {
      dir: dataDir(env),
      sourcesUrl: httpUrl(env, 'DATA_SOURCES_URL'),
      fetchTimeoutMs: integer(env, 'DATA_FETCH_TIMEOUT_MS', 30_000, 100, 600_000),
      maxBytes: integer(env, 'DATA_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxShrinkPercent: integer(env, 'DATA_MAX_SHRINK', 20, 0, 100),
      reloadIntervalSeconds: integer(env, 'DATA_RELOAD_INTERVAL', 0, 0, 7 * 86_400),
      updateIntervalSeconds: integer(env, 'DATA_UPDATE_INTERVAL', 0, 0, 7 * 86_400),
      ageCheck: onOff(env, 'DATA_AGE_CHECK', true),
    },
    network: {
      enabled: onOff(env, 'NETWORK_CHECKS', true),
      budgetMs: integer(env, 'NETWORK_BUDGET_MS', 1500, 50, 30_000),
      dnsServers: dnsServers(env),
      dnsTimeoutMs: integer(env, 'DNS_TIMEOUT_MS', 500, 50, 10_000),
      dnsTries: integer(env, 'DNS_TRIES', 2, 1, 5),
      rdapBaseUrl: httpUrl(env, 'RDAP_BASE_URL'),
      rdapBootstrapFile: existingFile(env, 'RDAP_BOOTSTRAP_FILE'),
      rdapTimeoutMs: integer(env, 'RDAP_TIMEOUT_MS', 3000, 100, 30_000),
      rdapCacheTtlSeconds: integer(env, 'RDAP_CACHE_TTL_SECONDS', 7 * 86_400, 60, 365 * 86_400),
      webChecks: onOff(env, 'WEB_CHECKS', true),
      webTimeoutMs: integer(env, 'WEB_TIMEOUT_MS', 1500, 100, 30_000),
      webCacheTtlSeconds: integer(env, 'WEB_CACHE_TTL_SECONDS', 86_400, 60, 30 * 86_400),
      dnsblDomainZones: blocklistZones(env, 'DNSBL_DOMAIN_ZONES'),
      dnsblIpZones: blocklistZones(env, 'DNSBL_IP_ZONES'),
      dnsCanaries: dnsCanaries(env),
      dnsCheckIntervalSeconds: integer(env, 'DNS_CHECK_INTERVAL_SECONDS', 300, 0, 86_400),
    },
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `${value} is outside ${min}..${max}`);
  return value;
}

function redisSettings(env: Env): Config['redis'] {
  const url = env.REDIS_URL?.trim();
  if (!url) return null;
  if (!/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS_URL', `"${url}" is not a redis:// or rediss:// URL`);
  return {
    url,
    prefix: env.REDIS_PREFIX?.trim() || 'email-trust:',
    timeoutMs: integer(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000),
  };
}

/** WORKERS: a number of processes, or `auto` for one per core. */
function workers(env: Env): number {
  const raw = env.WORKERS?.trim();
  if (raw === 'auto') return Math.max(1, availableParallelism());
  return integer(env, 'WORKERS', 1, 1, 256);
}

function serverLimits(env: Env): ServerLimits {
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  // node:http refuses a header timeout longer than the request's, which includes it.
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      'REQUEST_TIMEOUT_MS',
      `${requestTimeoutMs} is shorter than HEADERS_TIMEOUT_MS (${headersTimeoutMs}); the request includes its headers`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
  };
}

function opsConfig(env: Env): OpsConfig {
  const token = env.METRICS_TOKEN?.trim() || null;
  if (token !== null && token.length < 16)
    throw new ConfigError('METRICS_TOKEN', 'is shorter than 16 characters; use a long random value (e.g. openssl rand -hex 32)');
  if (token !== null && !/^[\x21-\x7e]+$/.test(token))
    throw new ConfigError('METRICS_TOKEN', 'must be printable ASCII without spaces (it is sent in an Authorization header)');
  return {
    metricsPort: env.METRICS_PORT?.trim() ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null,
    metricsToken: token,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    accessLog: onOff(env, 'ACCESS_LOG', true),
  };
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(name, `"${raw}" is not one of ${values.join(', ')}`);
  return raw as T;
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(raw)) {
    throw new ConfigError('DATABASE_URL', `"${raw}" is not sqlite:<path> or postgres://user@host:port/database`);
  }
  return raw;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `"${raw}" is not on or off`);
}

function dnsServers(env: Env): string[] {
  try {
    return parseDnsServers(env.DNS_SERVERS ?? '');
  } catch (error) {
    throw new ConfigError('DNS_SERVERS', (error as Error).message);
  }
}

/** Room left for the question's own labels: an IPv6 address's 32 nibbles and their dots (RFC 5782), in 253 characters. */
const MAX_ZONE_LENGTH = MAX_DOMAIN_LENGTH - 64;

/** A comma-separated list of DNS zone names (`dbl.spamhaus.org`), lower-cased, each once. */
function blocklistZones(env: Env, name: string): string[] {
  const zones: string[] = [];
  for (const entry of (env[name] ?? '').split(',')) {
    const text = entry.trim();
    if (text === '') continue;
    const zone = hostName(text, 'dns');
    if (zone === null || !zone.includes('.') || isAddressLiteral(zone)) {
      throw new ConfigError(name, `"${text}" is not a DNS zone name; expected comma-separated zones such as dbl.spamhaus.org`);
    }
    if (zone.length > MAX_ZONE_LENGTH)
      throw new ConfigError(name, `"${text}" is longer than ${MAX_ZONE_LENGTH} characters: the questions under it would not fit`);
    if (zones.includes(zone)) throw new ConfigError(name, `lists ${zone} twice`);
    zones.push(zone);
  }
  return zones;
}

/** Large mail providers on the shipped free-provider list: they have had MX records for decades. */
export const DEFAULT_DNS_CANARIES = ['gmail.com', 'outlook.com', 'yahoo.com'];

/** DNS_CANARIES: comma-separated domains (default DEFAULT_DNS_CANARIES); `off` or `none`: no self-check. */
function dnsCanaries(env: Env): string[] {
  const raw = env.DNS_CANARIES?.trim();
  if (raw === undefined || raw === '') return [...DEFAULT_DNS_CANARIES];
  if (['off', 'none'].includes(raw.toLowerCase())) return [];
  const domains: string[] = [];
  for (const entry of raw.split(',')) {
    const text = entry.trim();
    if (text === '') continue;
    const domain = hostName(text, 'dns');
    if (domain === null || !domain.includes('.') || isAddressLiteral(domain))
      throw new ConfigError(
        'DNS_CANARIES',
        `"${text}" is not a domain name; expected comma-separated domains that must resolve, such as gmail.com,outlook.com, or off`,
      );
    if (!domains.includes(domain)) domains.push(domain);
  }
  return domains;
}

function httpUrl(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!/^https?:\/\/[^\s]+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not an http(s) URL`);
  return raw;
}

function existingFile(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const file = resolve(raw);
  if (!existsSync(file) || !statSync(file).isFile()) throw new ConfigError(name, `"${raw}" is not a file`);
  return file;
}

function policiesFolder(env: Env): string {
  const raw = env.POLICIES_DIR?.trim();
  if (!raw) return defaultPoliciesDir;
  const dir = resolve(raw);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError('POLICIES_DIR', `"${raw}" is not a folder`);
  return dir;
}

const MAX_PROXY_HOPS = 100;
const TRUST_PROXY_FORMS = `false (no proxy), true (exactly one proxy hop), a number of trusted proxy hops 1..${MAX_PROXY_HOPS}, or a comma-separated list of trusted proxy addresses or CIDRs (e.g. 10.0.0.0/8,127.0.0.1/32; "loopback" stands for 127.0.0.0/8 and ::1/128)`;
const LOOPBACK: readonly ProxyRange[] = [ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128')];

function trustProxy(env: Env): TrustProxy {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (/^(|false|off|0)$/i.test(raw)) return { kind: 'off' };
  // `true` once meant "the leftmost entry", which the client writes itself: now it is one hop.
  if (/^(true|on)$/i.test(raw)) return { kind: 'hops', hops: 1 };
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError('TRUST_PROXY', `${hops} hops is outside 1..${MAX_PROXY_HOPS}; expected ${TRUST_PROXY_FORMS}`);
    return { kind: 'hops', hops };
  }
  return { kind: 'proxies', ranges: raw.split(',').flatMap((entry) => proxyRanges(entry.trim())) };
}

function proxyRanges(entry: string): readonly ProxyRange[] {
  if (entry.toLowerCase() === 'loopback') return LOOPBACK;
  const [text = '', bits] = entry.split('/');
  const address = parseAddress(text);
  const width = address?.kind() === 'ipv4' ? 32 : 128;
  if (!address || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= width)) || entry.split('/').length > 2) {
    throw new ConfigError('TRUST_PROXY', `"${entry}" is not an address, a CIDR or "loopback"; expected ${TRUST_PROXY_FORMS}`);
  }
  return [[address, bits === undefined ? width : Number(bits)]];
}

function fingerprintKeys(env: Env): Config['fingerprintKeys'] {
  const raw = env.FINGERPRINT_KEYS?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const [id, secret] = entry.split(':');
    if (!id || !secret || !/^[a-z0-9]{1,16}$/i.test(id)) {
      throw new ConfigError('FINGERPRINT_KEYS', 'expected a comma-separated list of <key id>:<32 bytes in base64>');
    }
    const key = Buffer.from(secret, 'base64');
    if (key.length !== 32) throw new ConfigError('FINGERPRINT_KEYS', `key ${id} is ${key.length} bytes, not 32`);
    return { id, key };
  });
}
