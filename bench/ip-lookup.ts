// The IP-intelligence lookup alone: lookups per second for IPv4 and IPv6 over a seeded random mix (half
// inside listed ranges, half anywhere), and what the compiled tables cost: module load time and the
// process's resident memory before and after loading the plugin, each after a full GC, and the time the
// tables take to compile without the cache of compiled tables (plugins/ip-intelligence/table-cache.ts). Run alone
// (`npx tsc -p tsconfig.json && node dist/bench/ip-lookup.js`), or from bench/run.ts through
// ipLookupFigures(), which runs it in a fresh process so the memory figures are the tables' own.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const LOOKUPS = Number(process.env.BENCH_IP_LOOKUPS ?? 1_000_000);
const SAMPLE = 10_000;

export interface IpLookupFigures {
  date: string;
  lookups: number;
  ipv4_lookups_per_second: number;
  ipv6_lookups_per_second: number;
  /** The plugin's module loaded, its tables read from the cache the last load kept (or compiled, when there was none). */
  load_ms: number;
  /** Whether that load found the compiled tables in the cache (plugins/ip-intelligence/table-cache.ts). */
  loaded_from_cache: boolean;
  /** The tables compiled from the lists without the cache, after that load (what a start with no cache adds). */
  compile_ms: number;
  rss_mb_before: number;
  rss_mb_after: number;
  rss_mb_tables: number;
  /** Live JS heap the loaded module holds (heapUsed after GC, after minus before). */
  heap_mb_tables: number;
  table_bytes: number;
  ranges: number;
  ipv4_segments: number;
  ipv6_segments: number;
  /** plugins/ip-network (AS number and country), measured after the above in the same process. */
  network: {
    ipv4_lookups_per_second: number;
    ipv6_lookups_per_second: number;
    /** The first lookup, which loads the tables (gunzip into typed arrays). */
    load_ms: number;
    rss_mb_tables: number;
    heap_mb_tables: number;
  };
}

/** Runs this file in a fresh node process and returns its figures. */
export function ipLookupFigures(): IpLookupFigures {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--json'], { encoding: 'utf8', env: process.env });
  return JSON.parse(out) as IpLookupFigures;
}

/** mulberry32: a small seeded generator, so every run looks the same addresses up. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** LOOKUPS lookups over `addresses` in turn, after a warm-up; counting what `lookup` finds keeps the loop's result alive. */
function lookupsPerSecond(addresses: readonly string[], lookup: (address: string) => unknown): number {
  let found = 0;
  for (let i = 0; i < 50_000; i++) if (lookup(addresses[i % SAMPLE] as string)) found++; // warm-up
  const t = performance.now();
  for (let i = 0; i < LOOKUPS; i++) if (lookup(addresses[i % SAMPLE] as string)) found++;
  const seconds = (performance.now() - t) / 1000;
  if (found < 0) throw new Error('unreachable');
  return Math.round(LOOKUPS / seconds);
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const residentMb = () => mb(process.memoryUsage().rss);

async function measure(): Promise<IpLookupFigures> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { parseRanges } = await import('../plugins/ip-intelligence/range-table.js');
  const { readCachedTables } = await import('../plugins/ip-intelligence/table-cache.js');
  const { TABLE_FILES, tablesKeyFor } = await import('../plugins/ip-intelligence/lists.js');
  const { pluginCacheDir, readDataFile } = await import('../plugins/plugin-data.js');
  const cached = readCachedTables(pluginCacheDir(), tablesKeyFor(TABLE_FILES.map((file) => readDataFile('ip-intelligence', file)))) !== null;
  gc();
  const rssBefore = residentMb();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const { lookupIp, tableStats } = await import('../plugins/ip-intelligence/index.js');
  const loadMs = Math.round(performance.now() - started);
  gc();
  const rssAfter = residentMb();
  const heapAfter = process.memoryUsage().heapUsed;
  const { loadTables } = await import('../plugins/ip-intelligence/lists.js');
  const compiling = performance.now();
  loadTables({ cacheDir: null });
  const compileMs = Math.round(performance.now() - compiling);

  // Half of the addresses inside a listed range (picked from the shipped files), half anywhere.
  const next = random(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const dataFile = (name: string) => readFileSync(fileURLToPath(new URL(`../../plugins/ip-intelligence/data/${name}`, import.meta.url)), 'utf8');
  const listed = parseRanges(['datacenter.txt', 'vpn.txt', 'providers/aws.txt', 'providers/apple_private_relay.txt'].map(dataFile).join('\n'));
  const v4: string[] = [];
  const v6: string[] = [];
  for (let i = 0; i < SAMPLE; i++) {
    const [first, last] = pick(listed.v4);
    const n = i % 2 === 0 ? first + Math.floor(next() * (last - first + 1)) : Math.floor(next() * 2 ** 32);
    v4.push([24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.'));
    const [a, b] = pick(listed.v6);
    const r = BigInt(Math.floor(next() * 2 ** 52)) * BigInt(Math.floor(next() * 2 ** 52));
    const m = i % 2 === 0 ? a + (r % (b - a + 1n)) : (0x2n << 124n) | ((r * r * r) % (1n << 125n));
    v6.push(Array.from({ length: 8 }, (_, k) => ((m >> BigInt(16 * (7 - k))) & 0xffffn).toString(16)).join(':'));
  }
  const rate = (addresses: readonly string[]) => lookupsPerSecond(addresses, (address) => lookupIp(address)?.provider);
  const network = await measureNetwork(gc, v4, v6);
  return {
    network,
    date: new Date().toISOString(),
    lookups: LOOKUPS,
    ipv4_lookups_per_second: rate(v4),
    ipv6_lookups_per_second: rate(v6),
    load_ms: loadMs,
    loaded_from_cache: cached,
    compile_ms: compileMs,
    rss_mb_before: rssBefore,
    rss_mb_after: rssAfter,
    rss_mb_tables: Math.round((rssAfter - rssBefore) * 10) / 10,
    heap_mb_tables: mb(heapAfter - heapBefore),
    table_bytes: tableStats.bytes,
    ranges: tableStats.ranges,
    ipv4_segments: tableStats.v4Segments,
    ipv6_segments: tableStats.v6Segments,
  };
}

/** plugins/ip-network over the same addresses: its tables' load at the first lookup, their memory, lookups a second. */
async function measureNetwork(gc: () => void, v4: readonly string[], v6: readonly string[]): Promise<IpLookupFigures['network']> {
  const { lookupNetwork } = await import('../plugins/ip-network/index.js');
  gc();
  const rssBefore = residentMb();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  lookupNetwork('8.8.8.8');
  const loadMs = Math.round(performance.now() - started);
  gc();
  const rssAfter = residentMb();
  const heapAfter = process.memoryUsage().heapUsed;
  const rate = (addresses: readonly string[]) => lookupsPerSecond(addresses, (address) => lookupNetwork(address)?.asn);
  return {
    ipv4_lookups_per_second: rate(v4),
    ipv6_lookups_per_second: rate(v6),
    load_ms: loadMs,
    rss_mb_tables: Math.round((rssAfter - rssBefore) * 10) / 10,
    heap_mb_tables: mb(heapAfter - heapBefore),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measure();
  if (process.argv.includes('--json')) console.log(JSON.stringify(figures));
  else {
    console.log(`ip lookup (parse + one binary search), ${figures.lookups} lookups each over a seeded mix:`);
    console.log(`  IPv4 ${figures.ipv4_lookups_per_second.toLocaleString('en')} /s, IPv6 ${figures.ipv6_lookups_per_second.toLocaleString('en')} /s`);
    console.log(
      `  tables: ${figures.ranges} ranges → ${figures.ipv4_segments} IPv4 + ${figures.ipv6_segments} IPv6 segments, ${Math.round(figures.table_bytes / 1024)} KiB of typed arrays`,
    );
    console.log(
      `  load ${figures.load_ms} ms (${figures.loaded_from_cache ? 'from the cache' : 'compiled: no cache yet'}; compiled without it ${figures.compile_ms} ms); RSS ${figures.rss_mb_before} → ${figures.rss_mb_after} MB after GC (+${figures.rss_mb_tables} MB), live heap +${figures.heap_mb_tables} MB`,
    );
    const n = figures.network;
    console.log(
      `ip-network (AS number, country): IPv4 ${n.ipv4_lookups_per_second.toLocaleString('en')} /s, IPv6 ${n.ipv6_lookups_per_second.toLocaleString('en')} /s; tables loaded at the first lookup in ${n.load_ms} ms, RSS +${n.rss_mb_tables} MB, live heap +${n.heap_mb_tables} MB`,
    );
  }
}
