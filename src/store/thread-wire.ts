// How the store thread's answers cross to the event loop (sqlite-thread.ts, sqlite-thread-worker.ts): as
// arrays of plain values, not as objects. The structured clone of a velocity's 100 {email, at} objects cost
// about 100 µs of CPU between the two threads; the same list as two arrays about 20 (a MessageChannel round
// trip of each, serialised on one side and read on the other). A read that gave its own address (OwnAddress)
// sends the entries it lists only, at most 19.
import type { OwnAnswer, Velocity } from '../engine/plugin.js';

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
