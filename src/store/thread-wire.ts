// How the store thread's answers cross to the event loop (sqlite-thread.ts, sqlite-thread-worker.ts): as
// arrays of plain values, not as objects. The structured clone of a velocity's 100 {email, at} objects cost
// about 100 µs of CPU between the two threads; the same list as two arrays about 20 (a MessageChannel round
// trip of each, serialised on one side and read on the other). A read that gave its own address (OwnAddress)
// sends the entries it lists only, at most 19.
import type { OwnAnswer, Velocity } from '../engine/plugin.js';
import type { AddressRow, CounterKind, CountRow } from './velocity-counters.js';

export type Rows = Array<Record<string, unknown>>;

/** A Velocity on its way: its list as the addresses and their times. */
export interface VelocityWire {
  addresses: string[];
  at: number[];
  distinctEmails: number;
  total: number;
  since: number[];
  own?: OwnAnswer;
}

export function velocityToWire(v: Velocity): VelocityWire {
  const addresses: string[] = new Array(v.emails.length);
  const at: number[] = new Array(v.emails.length);
  v.emails.forEach((e, i) => {
    addresses[i] = e.email;
    at[i] = e.at;
  });
  return { addresses, at, distinctEmails: v.distinctEmails, total: v.total, since: v.since, ...(v.own ? { own: v.own } : {}) };
}

export function velocityFromWire(w: VelocityWire): Velocity {
  const emails: Velocity['emails'] = new Array(w.addresses.length);
  for (let i = 0; i < w.addresses.length; i++) emails[i] = { email: w.addresses[i] as string, at: w.at[i] as number };
  return { emails, distinctEmails: w.distinctEmails, total: w.total, since: w.since, ...(w.own ? { own: w.own } : {}) };
}

/** A statement's rows on their way: the column names once, then every row's values in that order. */
export interface RowsWire {
  columns: string[];
  values: unknown[];
}

export function rowsToWire(rows: Rows): RowsWire {
  const columns = rows[0] ? Object.keys(rows[0]) : [];
  const values: unknown[] = [];
  for (const row of rows) for (const column of columns) values.push(row[column]);
  return { columns, values };
}

export function rowsFromWire(w: RowsWire): Rows {
  const rows: Rows = [];
  const width = w.columns.length;
  for (let at = 0; width > 0 && at < w.values.length; at += width) {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < width; i++) row[w.columns[i] as string] = w.values[at + i];
    rows.push(row);
  }
  return rows;
}

/** What a commit added to the velocity counters (sqlite-writes.ts, Committed), as flat lists of plain values. */
export interface AddedWire {
  /** project_id, kind, subject, bucket, validations, addresses of each count row. */
  counts: unknown[];
  /** project_id, kind, subject, address, last_seen of each address row. */
  addresses: unknown[];
}

export function addedToWire(added: { counts: readonly CountRow[]; addresses: readonly AddressRow[] }): AddedWire {
  const counts: unknown[] = [];
  for (const c of added.counts) counts.push(c.project_id, c.kind, c.subject, c.bucket, c.validations, c.addresses);
  const addresses: unknown[] = [];
  for (const a of added.addresses) addresses.push(a.project_id, a.kind, a.subject, a.address, a.last_seen);
  return { counts, addresses };
}

export function addedFromWire(w: AddedWire): { counts: CountRow[]; addresses: AddressRow[] } {
  const counts: CountRow[] = [];
  for (let i = 0; i + 5 < w.counts.length; i += 6) {
    const [project_id, kind, subject, bucket, validations, addresses] = w.counts.slice(i, i + 6) as [string, CounterKind, string, number, number, number];
    counts.push({ project_id, kind, subject, bucket, validations, addresses });
  }
  const addresses: AddressRow[] = [];
  for (let i = 0; i + 4 < w.addresses.length; i += 5) {
    const [project_id, kind, subject, address, last_seen] = w.addresses.slice(i, i + 5) as [string, CounterKind, string, string, number];
    addresses.push({ project_id, kind, subject, address, last_seen });
  }
  return { counts, addresses };
}
