// Sorted, disjoint integer range tables: many overlapping lists of address ranges compiled once into one
// table whose segments each carry a single label, so a lookup is one binary search over typed arrays
// (no per-request scan, no allocation besides the parsed address).
//
// Building: every list is a "set" (index 0..31). A sweep over the range boundaries gives, for each
// elementary segment, the mask of the sets covering it; `resolve(mask)` turns that mask into the label
// stored for the segment (0 = nothing, left out of the table). Overlaps are therefore settled at build
// time, by whatever precedence `resolve` encodes. Adjacent segments with the same label are merged.
import ipaddr from 'ipaddr.js';

/** An inclusive range of addresses as integers: [first, last]; numbers for IPv4, bigints for IPv6. */
export type Range<T extends number | bigint = number | bigint> = readonly [T, T];

/** One elementary segment of the compiled table. */
export interface Segment<T extends number | bigint> {
  first: T;
  last: T;
  label: number;
}

/** The most sets one table can combine (bits of a mask). */
export const MAX_SETS = 32;

// A boundary event is one sortable key: position * 64 + set * 2 + (1 when a range starts there, 0 when
// one ended just before). IPv4 keys stay below 2^39, exact in a Float64Array that sorts natively; IPv6
// keys are bigints. No object per event: building stays fast and its garbage small.
const EVENT_BITS = 64;

interface Events<T extends number | bigint> {
  count: number;
  /** Position of the i-th event in sorted order. */
  at(i: number): T;
  /** set * 2 + (1 for a start). */
  code(i: number): number;
}

function ipv4Events(sets: readonly (readonly Range<number>[])[]): Events<number> {
  const keys = new Float64Array(sets.reduce((n, ranges) => n + ranges.length * 2, 0));
  let k = 0;
  sets.forEach((ranges, set) => {
    for (const [first, last] of ranges) {
      if (last < first) throw new RangeError(`range ${first}..${last} ends before it starts`);
      keys[k++] = first * EVENT_BITS + set * 2 + 1;
      keys[k++] = (last + 1) * EVENT_BITS + set * 2;
    }
  });
  keys.sort();
  return { count: keys.length, at: (i) => Math.floor((keys[i] as number) / EVENT_BITS), code: (i) => (keys[i] as number) % EVENT_BITS };
}

function ipv6Events(sets: readonly (readonly Range<bigint>[])[]): Events<bigint> {
  const keys: bigint[] = [];
  sets.forEach((ranges, set) => {
    for (const [first, last] of ranges) {
      if (last < first) throw new RangeError(`range ${first}..${last} ends before it starts`);
      keys.push(first * 64n + BigInt(set * 2 + 1), (last + 1n) * 64n + BigInt(set * 2));
    }
  });
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { count: keys.length, at: (i) => (keys[i] as bigint) / 64n, code: (i) => Number((keys[i] as bigint) % 64n) };
}

/**
 * Disjoint segments, sorted, each labelled `resolve(mask of the sets covering it)`; label 0 is dropped.
 * Labels must be integers 0..65535. Ranges are numbers (IPv4, exact up to 2^53) or bigints (IPv6), one
 * kind per call.
 */
export function compileSegments<T extends number | bigint>(sets: readonly (readonly Range<T>[])[], resolve: (mask: number) => number): Segment<T>[] {
  if (sets.length > MAX_SETS) throw new RangeError(`at most ${MAX_SETS} sets per table, got ${sets.length}`);
  const bigints = sets.some((ranges) => typeof ranges[0]?.[0] === 'bigint');
  const events = (bigints ? ipv6Events(sets as readonly (readonly Range<bigint>[])[]) : ipv4Events(sets as readonly (readonly Range<number>[])[])) as Events<T>;
  const minus1 = (x: T) => (typeof x === 'bigint' ? x - 1n : (x as number) - 1) as T;
  const counts = new Int32Array(sets.length);
  let mask = 0;
  const segments: Segment<T>[] = [];
  for (let i = 0; i < events.count; ) {
    const at = events.at(i);
    for (; i < events.count && events.at(i) === at; i++) {
      const code = events.code(i);
      const set = code >>> 1;
      const count = (counts[set] as number) + (code & 1 ? 1 : -1);
      counts[set] = count;
      if (count === 0) mask &= ~(1 << set);
      else mask |= 1 << set;
    }
    if (i === events.count) break; // past the last range's end: nothing is covered
    const label = mask === 0 ? 0 : resolve(mask >>> 0);
    if (!Number.isInteger(label) || label < 0 || label > 0xffff) throw new RangeError(`label ${label} is not an integer 0..65535`);
    if (label === 0) continue;
    const previous = segments.at(-1);
    const last = minus1(events.at(i));
    if (previous && previous.label === label && previous.last === minus1(at)) previous.last = last;
    else segments.push({ first: at, last, label });
  }
  return segments;
}

const LOW_64 = (1n << 64n) - 1n;

/** An IPv4 table's typed arrays, as `arrays()` gives them and `fromArrays` takes them (table-cache.ts). */
export interface Ipv4Arrays {
  starts: Uint32Array;
  ends: Uint32Array;
  labels: Uint16Array;
}

/** IPv4 table: 32-bit starts and ends, one label per segment. */
export class Ipv4Table {
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private readonly labels: Uint16Array;

  constructor(segments: readonly Segment<number>[]) {
    this.starts = new Uint32Array(segments.length);
    this.ends = new Uint32Array(segments.length);
    this.labels = new Uint16Array(segments.length);
    segments.forEach((s, i) => {
      if (s.first < 0 || s.last > 0xffffffff) throw new RangeError(`segment ${s.first}..${s.last} is not IPv4`);
      this.starts[i] = s.first;
      this.ends[i] = s.last;
      this.labels[i] = s.label;
    });
  }

  /** A table over arrays `arrays()` gave (the same lengths; starts sorted, as a compiled table's are). */
  static fromArrays(arrays: Ipv4Arrays): Ipv4Table {
    const { starts, ends, labels } = arrays;
    if (ends.length !== starts.length || labels.length !== starts.length) throw new RangeError('an IPv4 table needs as many ends and labels as starts');
    const table = new Ipv4Table([]);
    Object.assign(table, { starts, ends, labels });
    return table;
  }

  /** The table's own arrays (not copies: do not change them). */
  arrays(): Ipv4Arrays {
    return { starts: this.starts, ends: this.ends, labels: this.labels };
  }

  get size(): number {
    return this.starts.length;
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.starts.byteLength + this.ends.byteLength + this.labels.byteLength;
  }

  /** Label of the segment holding `address` (0..2^32-1), 0 when none. */
  find(address: number): number {
    const { starts } = this;
    let lo = 0;
    let hi = starts.length - 1;
    // Last segment whose start is <= address.
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] as number) <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && address <= (this.ends[hi] as number) ? (this.labels[hi] as number) : 0;
  }
}

/** An IPv6 table's typed arrays, as `arrays()` gives them and `fromArrays` takes them (table-cache.ts). */
export interface Ipv6Arrays {
  startHi: BigUint64Array;
  startLo: BigUint64Array;
  endHi: BigUint64Array;
  endLo: BigUint64Array;
  labels: Uint16Array;
}

/** IPv6 table: starts and ends as two 64-bit halves each, one label per segment. */
export class Ipv6Table {
  private readonly startHi: BigUint64Array;
  private readonly startLo: BigUint64Array;
  private readonly endHi: BigUint64Array;
  private readonly endLo: BigUint64Array;
  private readonly labels: Uint16Array;

  constructor(segments: readonly Segment<bigint>[]) {
    const n = segments.length;
    this.startHi = new BigUint64Array(n);
    this.startLo = new BigUint64Array(n);
    this.endHi = new BigUint64Array(n);
    this.endLo = new BigUint64Array(n);
    this.labels = new Uint16Array(n);
    segments.forEach((s, i) => {
      if (s.first < 0n || s.last >= 1n << 128n) throw new RangeError(`segment ${s.first}..${s.last} is not IPv6`);
      this.startHi[i] = s.first >> 64n;
      this.startLo[i] = s.first & LOW_64;
      this.endHi[i] = s.last >> 64n;
      this.endLo[i] = s.last & LOW_64;
      this.labels[i] = s.label;
    });
  }

  /** A table over arrays `arrays()` gave (the same lengths; starts sorted, as a compiled table's are). */
  static fromArrays(arrays: Ipv6Arrays): Ipv6Table {
    const { startHi, startLo, endHi, endLo, labels } = arrays;
    const n = labels.length;
    if (startHi.length !== n || startLo.length !== n || endHi.length !== n || endLo.length !== n) {
      throw new RangeError('an IPv6 table needs as many starts and ends as labels');
    }
    const table = new Ipv6Table([]);
    Object.assign(table, { startHi, startLo, endHi, endLo, labels });
    return table;
  }

  /** The table's own arrays (not copies: do not change them). */
  arrays(): Ipv6Arrays {
    return { startHi: this.startHi, startLo: this.startLo, endHi: this.endHi, endLo: this.endLo, labels: this.labels };
  }

  get size(): number {
    return this.labels.length;
  }

  get bytes(): number {
    return this.startHi.byteLength * 4 + this.labels.byteLength;
  }

  /** Label of the segment holding the address whose upper and lower 64 bits are `hi` and `lo`; 0 when none. */
  find(hi: bigint, lo: bigint): number {
    const { startHi, startLo } = this;
    let a = 0;
    let b = startHi.length - 1;
    while (a <= b) {
      const mid = (a + b) >>> 1;
      const sHi = startHi[mid] as bigint;
      if (sHi < hi || (sHi === hi && (startLo[mid] as bigint) <= lo)) a = mid + 1;
      else b = mid - 1;
    }
    if (b < 0) return 0;
    const eHi = this.endHi[b] as bigint;
    return hi < eHi || (hi === eHi && lo <= (this.endLo[b] as bigint)) ? (this.labels[b] as number) : 0;
  }
}

export { dottedQuadNumber, ipv4Number, ipv6Halves } from '../ip-address.js';

// The data files' own IPv4 form (dotted quad, optional /bits), read without ipaddr.js and without a
// regular expression: ipaddr's generic parser tries IPv6 first (~10 µs a line, half a second for the
// 60,000 IPv4 lines shipped), and a match array per line is garbage that grows the heap at start.
const DOT = 46;
const SLASH = 47;
const ZERO = 48;

/**
 * [first, last] of an IPv4 CIDR or address in dotted-quad form, read from `text` between `from` and `to`
 * (no line string is made for it); null when it is not one.
 */
function ipv4Range(text: string, from = 0, to = text.length): Range<number> | null {
  let address = 0; // the octets read so far, as a number
  let bits = 32;
  let value = 0;
  let part = 0;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    const digit = code - ZERO;
    if (digit >= 0 && digit <= 9) {
      if (++digits > 3) return null;
      value = value * 10 + digit;
    } else if ((code === DOT && part < 3) || (code === SLASH && part === 3)) {
      if (digits === 0 || value > 255) return null;
      address = address * 256 + value;
      part += 1;
      value = 0;
      digits = 0;
    } else return null;
  }
  if (digits === 0 || part < 3) return null;
  if (part === 3) {
    if (value > 255) return null;
    address = address * 256 + value;
  } else if (value > 32) return null;
  else bits = value;
  const size = 2 ** (32 - bits);
  const first = address - (address % size);
  return [first, first + size - 1];
}

const COLON = 58;

/** The value of a hex digit's character code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/**
 * The eight 16-bit groups of an IPv6 address in plain hex-colon form (at most one `::`, no embedded IPv4,
 * no zone), and its prefix length (128 without one); null for anything else, which ipaddr.js then reads.
 * The data files hold about 25,000 IPv6 lines: through ipaddr.js alone they took 190 ms of a 2.3 s start.
 * One pass over the characters, as ipv4Range: no split, no regular expression.
 */
export function ipv6Words(line: string): { words: number[]; bits: number } | null {
  const words: number[] = [];
  let gap = -1; // how many groups come before the `::`
  let value = 0;
  let digits = 0;
  let i = 0;
  if (line.charCodeAt(0) === COLON) {
    if (line.charCodeAt(1) !== COLON) return null;
    gap = 0;
    i = 2;
  }
  let end = line.length;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    const hex = hexDigit(c);
    if (hex >= 0) {
      if (++digits > 4) return null;
      value = value * 16 + hex;
    } else if (c === COLON) {
      if (digits > 0) {
        words.push(value);
        value = 0;
        digits = 0;
      } else if (gap >= 0 || line.charCodeAt(i - 1) !== COLON)
        return null; // a second `::`, or `:::`
      else gap = words.length;
    } else if (c === SLASH) {
      end = i;
      break;
    } else return null; // a dot, a zone, anything else
  }
  if (digits > 0) words.push(value);
  // A trailing colon only as the end of a `::`.
  else if (!(gap === words.length && end >= 2 && line.charCodeAt(end - 1) === COLON && line.charCodeAt(end - 2) === COLON)) return null;
  if (gap < 0 ? words.length !== 8 : words.length > 7) return null;
  if (gap >= 0) words.splice(gap, 0, ...new Array<number>(8 - words.length).fill(0));
  let bits = 128;
  if (end < line.length) {
    const count = line.length - end - 1;
    if (count < 1 || count > 3) return null;
    bits = 0;
    for (let k = end + 1; k < line.length; k++) {
      const d = line.charCodeAt(k) - ZERO;
      if (d < 0 || d > 9) return null;
      bits = bits * 10 + d;
    }
    if (bits > 128) return null;
  }
  return { words, bits };
}

/** [first, last] of an IPv6 CIDR or address; null when it is not one. */
function ipv6Range(line: string): Range<bigint> | null {
  let parsed = ipv6Words(line);
  if (!parsed) {
    try {
      const [address, bits] = line.includes('/') ? ipaddr.IPv6.parseCIDR(line) : [ipaddr.IPv6.parse(line), 128];
      parsed = { words: address.parts, bits };
    } catch {
      return null;
    }
  }
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = parsed.words;
  // Four 32-bit numbers, then two bigint steps: a bigint per 16-bit group cost as much as the parse.
  const value = (BigInt(a * 0x10000 + b) << 96n) | (BigInt(c * 0x10000 + d) << 64n) | (BigInt(e * 0x10000 + f) << 32n) | BigInt(g * 0x10000 + h);
  const size = 1n << BigInt(128 - parsed.bits);
  const first = value & ~(size - 1n);
  return [first, first + size - 1n];
}

const HASH = 35;

/** Whether the character at `i` is white space as String.prototype.trim sees it. */
function isSpace(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  return code > 127 && /\s/.test(text.charAt(i));
}

/**
 * The IPv4 and IPv6 ranges of a list of CIDRs or bare addresses, one per line (blank lines and `#`
 * comments skipped, white space around a line ignored). Throws on a line that is neither, naming `source`
 * and the line number. One pass over the text: an IPv4 line (most of them) is read where it lies, without
 * a string of its own (91,000 lines are read at every start).
 */
export function parseRanges(text: string, source = 'list'): { v4: Range<number>[]; v6: Range<bigint>[] } {
  const v4: Range<number>[] = [];
  const v6: Range<bigint>[] = [];
  let lineNumber = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNumber += 1;
    let from = start;
    let to = end;
    while (from < to && isSpace(text, from)) from++;
    while (to > from && isSpace(text, to - 1)) to--;
    start = end + 1;
    if (from === to || text.charCodeAt(from) === HASH) continue;
    if (hasColon(text, from, to)) {
      const range = ipv6Range(text.slice(from, to));
      if (range === null) throw notARange(source, lineNumber, text.slice(from, to));
      v6.push(range);
    } else {
      const range = ipv4Range(text, from, to);
      if (range === null) throw notARange(source, lineNumber, text.slice(from, to));
      v4.push(range);
    }
  }
  return { v4, v6 };
}

function hasColon(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === COLON) return true;
  return false;
}

function notARange(source: string, lineNumber: number, line: string): SyntaxError {
  return new SyntaxError(`${source}:${lineNumber}: "${line}" is not an IP address or CIDR`);
}
