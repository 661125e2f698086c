// Builds the ip-network tables from the pinned @ip-location-db packages (npm, without installing them):
//   node plugins/ip-network/data/build.mjs [--lists DIR]
// Writes (gzipped, .gz): asn-ipv4.bin and country-ipv4.bin as little-endian Uint32 pairs [first address, value],
// asn-ipv6.bin and country-ipv6.bin as triples [high 32 bits, next 32 bits of the first address's /64, value],
// sorted; a range starts at its first address and lasts until the next entry's (value 0: no data there).
// An ASN's value is the AS number, a country's its two ASCII letters (c1 << 8 | c2). asn-names.tsv.gz: one
// `number<TAB>organisation` line per AS number the tables hold, sorted by number. entries.json: each file's count.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { packed as packedIn } from '../../../scripts/npm-pack.mjs';

const { values: args } = parseArgs({ options: { lists: { type: 'string', default: '/tmp/email-trust-ip-network-sources' } } });
export const PACKAGES = { asn: '@ip-location-db/asn', country: '@ip-location-db/geo-whois-asn-country' };
export const VERSION = '2.3.2026061719';
const here = (file) => new URL(`./${file}`, import.meta.url);

/** The CSV's rows: [first, last, ...rest]. */
const rows = (text) => parse(text, { relaxQuotes: true, relaxColumnCount: true, skipEmptyLines: true });

/** Sorted [first, lastExclusive, value] ranges as table entries: each range's start, a 0 entry at each gap, equal neighbours merged. */
function entries(ranges) {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out = [];
  let end = null;
  for (const [first, after, value] of ranges) {
    if (end !== null && first < end) continue; // an overlap: the earlier range keeps it
    if (end !== null && first > end) out.push([end, 0]);
    out.push([first, value]);
    end = after;
  }
  if (end !== null) out.push([end, 0]);
  // An entry lasts until the next one: one with its predecessor's value adds nothing.
  return out.filter((e, i) => i === 0 || e[1] !== out[i - 1][1]);
}

const V4_END = 2 ** 32;
const V6_END = 2n ** 64n;

function v4Table(list) {
  const table = new Uint32Array(list.length * 2);
  list.forEach(([first, value], i) => {
    table[i * 2] = first;
    table[i * 2 + 1] = value;
  });
  return list.at(-1)?.[0] === V4_END ? table.subarray(0, table.length - 2) : table;
}

function v6Table(list) {
  const kept = list.filter(([first]) => first < V6_END);
  const table = new Uint32Array(kept.length * 3);
  kept.forEach(([first, value], i) => {
    table[i * 3] = Number(first >> 32n);
    table[i * 3 + 1] = Number(first & 0xffffffffn);
    table[i * 3 + 2] = value;
  });
  return table;
}

const write = (file, table) => writeFileSync(here(file), gzipSync(Buffer.from(table.buffer, table.byteOffset, table.byteLength), { level: 9 }));
/** The /64 of an IPv6 number (the tables' granularity): the first address's, and the one after the last's. */
const v6Range = (first, last, value) => [BigInt(first) >> 64n, (BigInt(last) >> 64n) + 1n, value];

const asnDir = packedIn(args.lists, PACKAGES.asn, VERSION);
const countryDir = packedIn(args.lists, PACKAGES.country, VERSION);
const names = new Map();
const asnRanges = (file, range) =>
  rows(readFileSync(join(asnDir, file), 'utf8')).map(([first, last, asn, name]) => {
    const number = Number(asn);
    if (!names.has(number)) names.set(number, (name ?? '').replace(/[\t\n]/g, ' ').trim());
    return range(first, last, number);
  });
const letters = (code) => (code.length === 2 ? (code.charCodeAt(0) << 8) | code.charCodeAt(1) : 0);
const countryRanges = (file, range) => rows(readFileSync(join(countryDir, file), 'utf8')).map(([first, last, code]) => range(first, last, letters(code)));
const v4Range = (first, last, value) => [Number(first), Number(last) + 1, value];

const tables = {
  'asn-ipv4.bin.gz': v4Table(entries(asnRanges('asn-ipv4-num.csv', v4Range))),
  'asn-ipv6.bin.gz': v6Table(entries(asnRanges('asn-ipv6-num.csv', v6Range))),
  'country-ipv4.bin.gz': v4Table(entries(countryRanges('geo-whois-asn-country-ipv4-num.csv', v4Range))),
  'country-ipv6.bin.gz': v6Table(entries(countryRanges('geo-whois-asn-country-ipv6-num.csv', v6Range))),
};
const counts = {};
for (const [file, table] of Object.entries(tables)) {
  write(file, table);
  counts[file] = table.length / (file.includes('ipv6') ? 3 : 2);
  console.log(`${file}: ${counts[file]} entries, ${table.byteLength} bytes`);
}
const lines = [...names].sort((a, b) => a[0] - b[0]).map(([n, name]) => `${n}\t${name}`);
writeFileSync(here('asn-names.tsv.gz'), gzipSync(`${lines.join('\n')}\n`, { level: 9 }));
counts['asn-names.tsv.gz'] = lines.length;
console.log(`asn-names.tsv.gz: ${lines.length} AS numbers`);
// What `email-trust data` counts, without the plugin loading the tables (it loads them at its first lookup).
writeFileSync(here('entries.json'), `${JSON.stringify(counts, null, 2)}\n`);
