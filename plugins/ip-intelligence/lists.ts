// The IP lists compiled into two range tables (IPv4, IPv6) once, at module load, or read back compiled from
// the last start (table-cache.ts). Each segment's label packs the answer to every question a request asks:
// the provider (by precedence) and three flags.
import { existsSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pluginCacheDir, readDataFile } from '../plugin-data.js';
import { compileSegments, Ipv4Table, Ipv6Table, parseRanges, type Range } from './range-table.js';
import { readCachedTables, tablesKey, writeCachedTables } from './table-cache.js';

/**
 * Provider keys in precedence order, highest first: where ranges overlap, the first key covering an
 * address names it. Published crawler and AI-agent ranges are small and sit inside clouds (googlebot in
 * google_cloud, openai and mistral in azure), so they come first; then Apple's relay, whose users are
 * people; then GitHub's own published ranges; then the CDNs' published edges; then the clouds' published
 * lists; last the lists derived from routing data (ASN/IRR), which are broad (akamai is all of Akamai's
 * space, including Linode's) and must not hide a published, narrower list.
 */
export const PROVIDERS = [
  'googlebot',
  'bingbot',
  'applebot',
  'openai',
  'anthropic',
  'perplexity',
  'mistral',
  'apple_private_relay',
  'github',
  'cloudflare',
  'fastly',
  'aws',
  'azure',
  'google_cloud',
  'oracle_cloud',
  'digitalocean',
  'linode',
  'vultr',
  'hetzner',
  'ovh',
  'alibaba_cloud',
  'akamai',
] as const;
export type ProviderKey = (typeof PROVIDERS)[number];

/** Providers whose addresses are people behind a privacy proxy, not servers: a VPN, not a datacenter. */
const RELAYS: ReadonlySet<ProviderKey> = new Set(['apple_private_relay']);

/** The other lists, each one set of the table after the providers. */
export const FLAG_LISTS = { vpn: 'vpn.txt', tor: 'tor-exits.txt', datacenter: 'datacenter.txt' } as const;

// Label layout: bits 0-4 the provider's index + 1 (0 = none), then one bit per flag.
const PROVIDER_BITS = 0x1f;
export const VPN = 1 << 5;
export const TOR = 1 << 6;
export const DATACENTER = 1 << 7;

const VPN_SET = PROVIDERS.length;
const TOR_SET = VPN_SET + 1;
const DATACENTER_SET = VPN_SET + 2;

/** What one address is, decoded from a label. */
export interface IpFacts {
  provider: ProviderKey | null;
  vpn: boolean;
  tor: boolean;
  datacenter: boolean;
}

const decoded: IpFacts[] = [];
/** The facts of a label (decoded once per label value, shared: callers must not mutate them). */
export function decode(label: number): IpFacts {
  let facts = decoded[label];
  if (!facts) {
    const index = label & PROVIDER_BITS;
    facts = {
      provider: index === 0 ? null : (PROVIDERS[index - 1] ?? null),
      vpn: (label & VPN) !== 0,
      tor: (label & TOR) !== 0,
      datacenter: (label & DATACENTER) !== 0,
    };
    decoded[label] = facts;
  }
  return facts;
}

/**
 * A covering mask to a label: the first provider in precedence order; VPN for vpn.txt and the relays;
 * datacenter for datacenter.txt and every provider but the relays (crawlers, CDNs and clouds are servers).
 */
function resolve(mask: number): number {
  let label = 0;
  PROVIDERS.forEach((key, i) => {
    if ((mask & (1 << i)) === 0) return;
    if (label === 0) label = i + 1;
    label |= RELAYS.has(key) ? VPN : DATACENTER;
  });
  if (mask & (1 << VPN_SET)) label |= VPN;
  if (mask & (1 << TOR_SET)) label |= TOR;
  if (mask & (1 << DATACENTER_SET)) label |= DATACENTER;
  return label;
}

/** Every file the tables are built from (relative to data/), with its entry count: the lines that parsed. */
export interface LoadedList {
  file: string;
  entries: number;
}

export interface IpTables {
  v4: Ipv4Table;
  v6: Ipv6Table;
  lists: LoadedList[];
}

/** Loaded tables and the key of the lists they were compiled from (tablesKeyFor). */
export type KeyedTables = IpTables & { key: string };

/** Where loadTables reads the lists and keeps the compiled tables (the defaults: data/ and the package's cache). */
export interface TableSources {
  /** The text of a file of data/ (e.g. `providers/aws.txt`). */
  read?: (file: string) => string;
  /** The folder of the compiled tables (table-cache.ts); null: compile at every load, keep nothing. */
  cacheDir?: string | null;
}

/** Every list file the tables are built from (relative to data/), in set order. */
export const TABLE_FILES: readonly string[] = [...PROVIDERS.map((key) => `providers/${key}.txt`), FLAG_LISTS.vpn, FLAG_LISTS.tor, FLAG_LISTS.datacenter];

/**
 * Both tables: read from the cache when it holds them for these lists, else compiled from the lists (and
 * kept there for the next start). The key covers the lists' text and the code that compiles them.
 */
export function loadTables(sources: TableSources = {}): KeyedTables {
  const read = sources.read ?? ((file: string) => readDataFile('ip-intelligence', file));
  const cacheDir = sources.cacheDir === undefined ? pluginCacheDir() : sources.cacheDir;
  const texts = TABLE_FILES.map(read);
  const key = tablesKeyFor(texts);
  if (cacheDir === null) return { ...compileTables(texts), key };
  const cached = readCachedTables(cacheDir, key);
  if (cached) return { ...cached, key };
  const tables = compileTables(texts);
  writeCachedTables(cacheDir, key, tables);
  return { ...tables, key };
}

/** The cache key of the tables compiled from `texts` (of TABLE_FILES): the lists and the code that compiles them. */
export function tablesKeyFor(texts: readonly string[]): string {
  return tablesKey([
    endianness(),
    PROVIDERS.join(),
    resolve.toString(),
    compileSegments.toString(),
    Ipv4Table.toString(),
    Ipv6Table.toString(),
    ...TABLE_FILES.flatMap((file, i) => [file, texts[i] as string]),
  ]);
}

/** Compiles both tables from the texts of TABLE_FILES. */
export function compileTables(texts: readonly string[]): IpTables {
  const v4Sets: Range<number>[][] = [];
  const v6Sets: Range<bigint>[][] = [];
  const lists: LoadedList[] = [];
  TABLE_FILES.forEach((file, i) => {
    const { v4, v6 } = parseRanges(texts[i] as string, file);
    v4Sets.push(v4);
    v6Sets.push(v6);
    lists.push({ file, entries: v4.length + v6.length });
  });
  return { v4: new Ipv4Table(compileSegments(v4Sets, resolve)), v6: new Ipv6Table(compileSegments(v6Sets, resolve)), lists };
}

/**
 * The tables of the lists as they are now (an update in DATA_DIR, else the shipped file), for a reload; null
 * when they are the ones of `loadedKey`. The compilation (200-300 ms) runs on a thread of its own, which keeps
 * its tables in the cache: this thread only reads them back (about 10 ms), so no request waits on a compile.
 */
export async function reloadTables(loadedKey: string): Promise<KeyedTables | null> {
  const texts = TABLE_FILES.map((file) => readDataFile('ip-intelligence', file));
  const key = tablesKeyFor(texts);
  if (key === loadedKey) return null;
  const cacheDir = pluginCacheDir();
  const worker = new Worker(compileThreadFile(), { workerData: { cacheDir, texts } });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the tables' compile thread exited with ${code}`))));
  });
  // A cache that could not be written (a read-only install): compiled here after all.
  return { ...(readCachedTables(cacheDir, key) ?? compileTables(texts)), key };
}

/** The compiled thread (dist/): from the TypeScript sources (tests), the build's copy. */
function compileThreadFile(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? join(dirname(here), '../../dist/plugins/ip-intelligence/table-compile-thread.js')
    : join(dirname(here), 'table-compile-thread.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -p tsconfig.json)`);
  return file;
}
