// Which RDAP server answers for a domain: IANA's bootstrap file (RFC 9224; a shipped copy,
// src/network/data/rdap-dns.json, or one the configuration names) maps TLDs and longer suffixes to
// base URLs.
import { readFileSync } from 'node:fs';
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
