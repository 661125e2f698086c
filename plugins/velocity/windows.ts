// The facts computed for one request from the IP's history, over the windows of ../velocity-windows.ts.
import type { FactValues, Velocity, VelocityEntry } from '../../src/engine/plugin.js';
import { countFact, DEVICE_WINDOWS, type DeviceWindowName, distinctFact, LIST_LIMIT, WINDOWS } from '../velocity-windows.js';

export {
  countFact,
  DEVICE_WINDOWS,
  type DeviceWindowName,
  DISTINCT_SCAN_LIMIT,
  distinctFact,
  LIST_LIMIT,
  WINDOWS,
  type WindowName,
} from '../velocity-windows.js';

/** The windows' fact names in WINDOWS order, made once: a name built per request is a new string to look up. */
const COUNT_FACTS = WINDOWS.map((w) => countFact(w.name));
const DISTINCT_FACTS = WINDOWS.map((w) => distinctFact(w.name));

const DAY_MS = 86_400_000;
/** 0001-01-01 and 10000-01-01: within these a date has four year digits, and the fast form applies. */
const FIRST_FAST_MS = -62_135_596_800_000;
const LAST_FAST_MS = 253_402_300_800_000;
/** "YYYY-MM-DDT" per day number: a request formats up to 20 times of a few days; cleared when it grows. */
const dayPrefixes = new Map<number, string>();
const MAX_DAYS = 512;

/** "00" to "99" and "000" to "999": a time's fields are looked up, not padded (String and padStart per field). */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
/** createdTime's pieces, the fields filled in per call: "YYYY-MM-DDT", hh, ":", mm, ":", ss, ".", mmm, "+00:00". */
const TIME_PARTS = ['', '', ':', '', ':', '', '.', '', '+00:00'];

/**
 * ISO 8601 with a numeric offset, e.g. 2026-11-22T03:09:01.123+00:00 (the date part is formatted once per day).
 * About 90 ns: a request lists up to 20 times, and under load from 1,000 IPs the times listed (20,000) were
 * more than a memo of them held, so nearly every one was formatted anew, at about 650 ns with padStart.
 */
export function createdTime(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= FIRST_FAST_MS && ms < LAST_FAST_MS)) return `${new Date(ms).toISOString().slice(0, -1)}+00:00`;
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= MAX_DAYS) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const inDay = ms - day * DAY_MS;
  const hours = TWO_DIGITS[Math.floor(inDay / 3_600_000)] as string;
  const minutes = TWO_DIGITS[Math.floor(inDay / 60_000) % 60] as string;
  const seconds = TWO_DIGITS[Math.floor(inDay / 1000) % 60] as string;
  // Joined, not a template: a template of this length is a tree of string pieces (a cons string) that every
  // reader of its characters flattens first; JSON.stringify of a verify answer's 20 times did so on each.
  TIME_PARTS[0] = prefix;
  TIME_PARTS[1] = hours;
  TIME_PARTS[3] = minutes;
  TIME_PARTS[5] = seconds;
  TIME_PARTS[7] = THREE_DIGITS[inDay % 1000] as string;
  return TIME_PARTS.join('');
}

/** Times from which each window counts (inclusive), in WINDOWS order. */
export function windowStarts(now: number): number[] {
  return WINDOWS.map((w) => now - w.ms);
}

/** The other addresses of a history, apart from the request's own: the first of them to list, and how many there are in all and per window. */
interface Others {
  /** Whether the request's own address is in the history. */
  seen: boolean;
  /** The others' entries, newest first, at most LIST_LIMIT - 1 (the request's own is listed first). */
  list: VelocityEntry[];
  /** How many other addresses the history holds. */
  count: number;
  /** How many of them were last seen at or after each start, in that order. */
  since: number[];
}

/** The history's addresses (newest first) with the request's own (lower-cased) set apart. */
function othersOf(history: Velocity, own: string, starts: readonly number[]): Others {
  const list: VelocityEntry[] = [];
  const since = starts.map(() => 0);
  let count = 0;
  let seen = false;
  for (const entry of history.emails) {
    if (entry.email.toLowerCase() === own) {
      seen = true;
      continue;
    }
    count += 1;
    if (list.length < LIST_LIMIT - 1) list.push(entry);
    for (let i = 0; i < starts.length; i++) if (entry.at >= (starts[i] as number)) since[i] = (since[i] as number) + 1;
  }
  return { seen, list, count, since };
}

/**
 * Facts for the current request from the IP's history (its newest DISTINCT_SCAN_LIMIT addresses, read with
 * windowStarts(now); has_multiple_emails_in_ip is the check's: index.ts), written into `facts` (a new object
 * by default; the plugin gives a copy of its template, index.ts). The history does not hold this request yet
 * (its event is stored after the decision), so every count includes it here.
 */
export function velocityFacts(email: string, now: number, history: Velocity, facts: FactValues = {}): FactValues {
  const current = email.toLowerCase();
  const others = othersOf(history, current, windowStarts(now));
  facts.distinct_emails_in_ip = Math.max(history.distinctEmails + (others.seen ? 0 : 1), others.count + 1);
  facts.emails_in_ip = [
    { email_address: current, created_time: createdTime(now) },
    ...others.list.map((e) => ({ email_address: e.email, created_time: createdTime(e.at) })),
  ];
  facts.total_email_in_ip = history.total + 1;
  for (let i = 0; i < WINDOWS.length; i++) {
    facts[COUNT_FACTS[i] as string] = (history.since[i] ?? 0) + 1;
    facts[DISTINCT_FACTS[i] as string] = (others.since[i] ?? 0) + 1;
  }
  return facts;
}

export const deviceDistinctFact = (w: DeviceWindowName) => `distinct_emails_from_device_last_${w}`;
const DEVICE_DISTINCT_FACTS = DEVICE_WINDOWS.map((w) => deviceDistinctFact(w.name));

/** Times from which each device window counts (inclusive), in DEVICE_WINDOWS order. */
export function deviceWindowStarts(now: number): number[] {
  return DEVICE_WINDOWS.map((w) => now - w.ms);
}

/**
 * Distinct addresses from the request's device, in total and per window (DEVICE_WINDOWS), this one included,
 * from the device's newest DISTINCT_SCAN_LIMIT addresses; written into `facts`, as velocityFacts.
 */
export function deviceFacts(email: string, device: string, now: number, history: Velocity, facts: FactValues = {}): FactValues {
  const others = othersOf(history, email.toLowerCase(), deviceWindowStarts(now));
  facts.device = device;
  facts.distinct_emails_from_device = Math.max(history.distinctEmails + (others.seen ? 0 : 1), others.count + 1);
  for (let i = 0; i < DEVICE_WINDOWS.length; i++) facts[DEVICE_DISTINCT_FACTS[i] as string] = (others.since[i] ?? 0) + 1;
  return facts;
}
