// Which RDAP server answers for a domain: IANA's bootstrap file (RFC 9224; the one the configuration
// names, else one `email-trust rdap refresh` installed in data/, else the shipped copy
// src/network/data/rdap-dns.json) maps TLDs and longer suffixes to base URLs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

export const DEFAULT_BOOTSTRAP_FILE = join(packageRoot, 'src', 'network', 'data', 'rdap-dns.json');

/** TLD (or longer suffix) → base URL with a trailing slash, from an RFC 9224 bootstrap file. */
export function loadBootstrap(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`RDAP bootstrap file ${file}: ${(error as Error).message}`);
  }
  const services = (parsed as { services?: unknown } | null)?.services;
  if (!Array.isArray(services)) throw new Error(`RDAP bootstrap file ${file}: no "services" array (RFC 9224)`);
  const bases = new Map<string, string>();
  for (const service of services) {
    const [entries, urls] = Array.isArray(service) ? (service as unknown[]) : [];
    if (!Array.isArray(entries) || !Array.isArray(urls)) throw new Error(`RDAP bootstrap file ${file}: a service is not [[names], [urls]]`);
    const url = preferredUrl(urls.filter((u): u is string => typeof u === 'string'));
    if (url === null) continue;
    for (const entry of entries) if (typeof entry === 'string') bases.set(entry.toLowerCase(), url);
  }
  return bases;
}

/** RFC 9224 §4: prefer HTTPS when a service lists several URLs; the base ends with a slash. */
export function preferredUrl(urls: string[]): string | null {
  const usable = urls.filter((u) => /^https?:\/\//i.test(u));
  const url = usable.find((u) => /^https:/i.test(u)) ?? usable[0];
  if (url === undefined) return null;
  return url.endsWith('/') ? url : `${url}/`;
}

/** The base URL of the longest suffix of `name` the bootstrap lists (RFC 9224 §4). */
export function baseFor(bases: ReadonlyMap<string, string>, name: string): string | null {
  for (let suffix = name; ; ) {
    const base = bases.get(suffix);
    if (base !== undefined) return base;
    const dot = suffix.indexOf('.');
    if (dot < 0) return null;
    suffix = suffix.slice(dot + 1);
  }
}

/** Where `email-trust rdap refresh` installs IANA's file by default: the data folder beside the SQLite database. */
export function installedBootstrapFile(cwd: string = process.cwd()): string {
  return join(cwd, 'data', 'rdap-dns.json');
}

/**
 * The bootstrap file the service reads when no RDAP_BOOTSTRAP_FILE is configured: one installed by
 * `email-trust rdap refresh` (data/rdap-dns.json) takes precedence over the shipped copy.
 */
export function defaultBootstrapFile(cwd: string = process.cwd()): string {
  const installed = installedBootstrapFile(cwd);
  return existsSync(installed) ? installed : DEFAULT_BOOTSTRAP_FILE;
}

/** What a valid bootstrap file holds, for the person who installs it. */
export interface BootstrapSummary {
  publication: string;
  description: string | null;
  services: number;
  entries: number;
  /** Entries whose service lists no https URL (IANA's file has a few; RFC 9224 lets a client use http then). */
  httpOnly: string[];
}

/** A bootstrap file that is not an RFC 9224 DNS registry; the message names the problem and where it is. */
export class BootstrapFileError extends Error {}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
/** An RFC 3339 date-time on a real calendar day (Date.parse rolls 02-31 over into March). */
function isRfc3339(text: string): boolean {
  const match = RFC3339.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = text.slice(0, 19).split(/[-T:]/).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 61;
}
const DNS_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Checks IANA's dns.json shape (RFC 9224 §3, §4): version 1.0, a publication date, services of [[names], [base URLs]]. */
export function checkBootstrap(parsed: unknown): BootstrapSummary {
  const fail = (problem: string): never => {
    throw new BootstrapFileError(problem);
  };
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    fail('not a JSON object (RFC 9224: {version, publication, description, services})');
  const file = parsed as Record<string, unknown>;
  if (file.version !== '1.0') fail(`"version" is ${JSON.stringify(file.version)}, not "1.0"`);
  const publication = file.publication;
  if (typeof publication !== 'string' || !isRfc3339(publication)) fail(`"publication" is ${JSON.stringify(publication)}, not an RFC 3339 date and time`);
  if (file.description !== undefined && typeof file.description !== 'string') fail('"description" is not a string');
  const services = file.services;
  if (!Array.isArray(services) || services.length === 0) fail('"services" is not a non-empty array');
  const seen = new Map<string, number>();
  const httpOnly: string[] = [];
  (services as unknown[]).forEach((service, i) => {
    const where = `services[${i}]`;
    if (!Array.isArray(service) || service.length !== 2 || !Array.isArray(service[0]) || !Array.isArray(service[1]))
      fail(`${where} is not [[names], [base URLs]]`);
    const [names, urls] = service as [unknown[], unknown[]];
    if (names.length === 0) fail(`${where} lists no name`);
    if (urls.length === 0) fail(`${where} lists no base URL`);
    for (const name of names) {
      if (typeof name !== 'string' || !DNS_NAME.test(name.toLowerCase())) fail(`${where}: ${JSON.stringify(name)} is not a DNS name in ASCII (A-label) form`);
      const key = (name as string).toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) fail(`${where}: "${key}" is listed twice (also in services[${first}])`);
      seen.set(key, i);
    }
    let https = false;
    for (const url of urls) {
      let parsedUrl: URL | null = null;
      try {
        parsedUrl = typeof url === 'string' ? new URL(url) : null;
      } catch {
        parsedUrl = null;
      }
      if (parsedUrl === null || (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:'))
        fail(`${where}: ${JSON.stringify(url)} is not an https (or http) URL`);
      const u = parsedUrl as URL;
      if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '')
        fail(`${where}: ${JSON.stringify(url)} carries credentials, a query or a fragment`);
      if (u.protocol === 'https:') https = true;
    }
    if (!https) httpOnly.push(...names.map((n) => String(n).toLowerCase()));
  });
  return {
    publication: publication as string,
    description: typeof file.description === 'string' ? file.description : null,
    services: (services as unknown[]).length,
    entries: seen.size,
    httpOnly,
  };
}
