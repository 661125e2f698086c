// The network (AS number and organisation) and the country of an IP address, from the tables that
// data/build.mjs makes: sorted starts with a value each, a range lasting until the next start (value 0:
// nothing known there), so a lookup is one binary search over a Uint32Array. Loaded at the first lookup
// (gunzip of 5.4 MB into 14 MB of typed arrays and names), not at start: a service whose policies never read these
// facts never holds them.
import { gunzipSync } from 'node:zlib';
import type { IpNumber } from '../ip-address.js';
import { readDataBytes } from '../plugin-data.js';

const readData = (file: string) => readDataBytes('ip-network', file);

/** Entries per file, as data/build.mjs wrote them (for `email-trust data`, without loading the tables). */
export const ENTRIES: Readonly<Record<string, number>> = JSON.parse(readData('entries.json').toString('utf8'));

/** One inflated chunk at most (a table is 2-4 MB). */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * A gzip file's contents, inflated into one buffer of its final size (the size is the file's last 4 bytes,
 * ISIZE). zlib's default 16 KB chunks, concatenated, left about 18 MB of freed chunks resident in the
 * allocator for these 14 MB of tables.
 */
function gunzipWhole(file: string): Buffer {
  const gzipped = readData(file);
  const size = gzipped.length >= 4 ? gzipped.readUInt32LE(gzipped.length - 4) : 0;
  // ISIZE is only the file's word: a damaged one could ask for 4 GB.
  return size > 0 ? gunzipSync(gzipped, { chunkSize: Math.min(Math.max(size, 64), MAX_CHUNK_BYTES) }) : gunzipSync(gzipped);
}

function uint32s(file: string): Uint32Array {
  const bytes = gunzipWhole(file);
  // The output is a buffer of its own, at offset 0: viewed, not copied (a copy left the original to the
  // allocator, resident). A view needs 4-byte alignment; a misaligned one is copied.
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The value of the last entry starting at or before `value` ([start, value] pairs), 0 before the first. */
function findV4(table: Uint32Array, value: number): number {
  let lo = 0;
  let hi = table.length / 2 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((table[mid * 2] as number) <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? 0 : (table[found * 2 + 1] as number);
}

/** The same over [high 32 bits, next 32 bits, value] triples: the address's /64 against each start's. */
function findV6(table: Uint32Array, high: number, next: number): number {
  let lo = 0;
  let hi = table.length / 3 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const h = table[mid * 3] as number;
    if (h < high || (h === high && (table[mid * 3 + 1] as number) <= next)) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? 0 : (table[found * 3 + 2] as number);
}

interface Names {
  numbers: Uint32Array;
  /** The file's text; names[i] is text[starts[i], ends[i]) (after the tab). */
  text: Buffer;
  starts: Uint32Array;
  ends: Uint32Array;
}

function loadNames(): Names {
  const text = gunzipWhole('asn-names.tsv.gz');
  const count = ENTRIES['asn-names.tsv.gz'] ?? 0;
  const numbers = new Uint32Array(count);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  let at = 0;
  for (let i = 0; i < count; i++) {
    const tab = text.indexOf(9, at);
    const end = text.indexOf(10, tab);
    let n = 0;
    for (let k = at; k < tab; k++) n = n * 10 + ((text[k] as number) - 48);
    numbers[i] = n;
    starts[i] = tab + 1;
    ends[i] = end;
    at = end + 1;
  }
  return { numbers, text, starts, ends };
}

function nameOf(names: Names, asn: number): string | null {
  let lo = 0;
  let hi = names.numbers.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const n = names.numbers[mid] as number;
    if (n === asn) return names.starts[mid] === names.ends[mid] ? null : names.text.toString('utf8', names.starts[mid], names.ends[mid]);
    if (n < asn) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

interface Tables {
  asnV4: Uint32Array;
  asnV6: Uint32Array;
  countryV4: Uint32Array;
  countryV6: Uint32Array;
  names: Names;
}

let tables: Tables | undefined;

/** The tables, loaded at the first call. */
export function networkTables(): Tables {
  tables ??= {
    asnV4: uint32s('asn-ipv4.bin.gz'),
    asnV6: uint32s('asn-ipv6.bin.gz'),
    countryV4: uint32s('country-ipv4.bin.gz'),
    countryV6: uint32s('country-ipv6.bin.gz'),
    names: loadNames(),
  };
  return tables;
}

export interface Network {
  /** The AS number announcing the address; null where the tables hold none. */
  asn: number | null;
  /** Its organisation's name; null without an AS number or a name for it. */
  org: string | null;
  /** ISO 3166-1 alpha-2 code of the country the address is registered in (upper case); null where unknown. */
  country: string | null;
}

const V6_WORD = 0xffffffffn;

/** What the tables say of one address. */
export function networkOf(ip: IpNumber): Network {
  const t = networkTables();
  let asn: number;
  let country: number;
  if (ip.kind === 'ipv4') {
    asn = findV4(t.asnV4, ip.value);
    country = findV4(t.countryV4, ip.value);
  } else {
    const high = Number(ip.hi >> 32n);
    const next = Number(ip.hi & V6_WORD);
    asn = findV6(t.asnV6, high, next);
    country = findV6(t.countryV6, high, next);
  }
  return {
    asn: asn === 0 ? null : asn,
    org: asn === 0 ? null : nameOf(t.names, asn),
    country: country === 0 ? null : String.fromCharCode(country >> 8, country & 0xff),
  };
}
