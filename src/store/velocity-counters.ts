// Velocity counters, maintained on write so that every velocity read costs a bounded amount however long
// the history of the IP, device or address it looks up (issue 9: one verify from an IP with 1,000,000
// events used to scan them all). Written in the same transaction as the event rows (event-writer.ts).
//
// - velocity_counts: validations per (project, kind, subject, minute bucket), plus one total row per
//   subject (bucket TOTAL_BUCKET) that also holds the number of distinct addresses. A window read takes
//   the total row and at most the newest MAX_WINDOW_BUCKETS minute rows. The email kind has its total
//   row only (nothing reads windows of it): one row per address, not two, on the write path.
// - velocity_addresses: the last time each address was seen per (project, kind, subject); read newest
//   first with a LIMIT on the (project_id, kind, subject, last_seen, address) index, which covers it.
//
// Kinds: ipv4, ipv6, device (addresses are email_lower, as per-IP velocity tells accounts apart) and
// email (subject base_email; counts only, no address rows). A device's spread, as address rows under a
// total row and no minute rows: device_ip (the IPs it came from) and device_network (their /24 and /64
// networks, src/ip-prefix.ts). A fingerprint token's uses are its events (events.ts, tokenUses): a token
// lives a day at most, so a capped read of its rows needs no counter.
// Every statement is plain SQL that SQLite (≥ 3.35, for RETURNING) and PostgreSQL both run.
import type { Knex } from 'knex';
import type { SpreadKind } from '../engine/plugin.js';
import { networkPrefix } from '../ip-prefix.js';
import type { EventRow } from './commit-statements.js';
import { toNumber } from './sql-values.js';

export const MINUTE_MS = 60_000;
/** Bucket of a subject's total row: above every minute bucket, so `bucket >= ?` reads it with the minutes. */
export const TOTAL_BUCKET = Number.MAX_SAFE_INTEGER;
/** Minute rows a window read takes at most: three hours and the current minute (the longest IP window). */
export const MAX_WINDOW_BUCKETS = 181;

/** SpreadKind: kept as a total row and address rows only, nothing reads their minutes. */
export type CounterKind = 'ipv4' | 'ipv6' | 'device' | 'email' | SpreadKind;
const WINDOWED: ReadonlySet<CounterKind> = new Set(['ipv4', 'ipv6', 'device']);

export interface Statement {
  sql: string;
  bindings: unknown[];
}

/** Rows per statement: 500 × 6 bindings stays far below both databases' parameter limits (32,766 and 65,535). */
const ROWS_PER_STATEMENT = 500;

/** The minute bucket holding `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / MINUTE_MS);
}

/** The address a row counts as: email_lower, or base_email for a row written without it (migration 0002). */
function addressOf(row: EventRow): string {
  return row.email_lower || row.base_email;
}

/** The (kind, subject) pairs an event counts under, each with the addresses it adds (none: counts only). */
function subjectsOf(row: EventRow): Array<{ kind: CounterKind; subject: string; addresses: readonly string[] }> {
  const address = addressOf(row);
  const out: Array<{ kind: CounterKind; subject: string; addresses: readonly string[] }> = [];
  if (row.ipv4) out.push({ kind: 'ipv4', subject: row.ipv4, addresses: [address] });
  if (row.ipv6) out.push({ kind: 'ipv6', subject: row.ipv6, addresses: [address] });
  out.push({ kind: 'email', subject: row.base_email, addresses: NO_ADDRESSES });
  if (!row.device) return out;
  out.push({ kind: 'device', subject: row.device, addresses: [address] });
  const ips = [row.ipv4, row.ipv6].filter((ip): ip is string => typeof ip === 'string' && ip !== '');
  if (ips.length > 0) {
    out.push({ kind: 'device_ip', subject: row.device, addresses: ips });
    out.push({ kind: 'device_network', subject: row.device, addresses: present(ips.map(networkPrefix)) });
  }
  return out;
}

const present = (values: Array<string | null>): string[] => values.filter((v): v is string => v !== null);
const NO_ADDRESSES: readonly string[] = [];

const SEP = '\u0000';
const keyOf = (...parts: Array<string | number>) => parts.join(SEP);

export interface CountRow {
  project_id: string;
  kind: CounterKind;
  subject: string;
  bucket: number;
  validations: number;
  addresses: number;
}

export interface AddressRow {
  project_id: string;
  kind: CounterKind;
  subject: string;
  address: string;
  last_seen: number;
}

/**
 * A batch of events folded into one row per counter and per address, sorted so that concurrent writers lock
 * in one order; `only`: of these kinds alone (a migration's backfill of new kinds).
 */
export function aggregate(rows: readonly EventRow[], only?: ReadonlySet<CounterKind>): { counts: CountRow[]; addresses: AddressRow[] } {
  const counts = new Map<string, CountRow>();
  const addresses = new Map<string, AddressRow>();
  const bump = (project_id: string, kind: CounterKind, subject: string, bucket: number) => {
    const key = keyOf(project_id, kind, subject, bucket);
    const found = counts.get(key);
    if (found) found.validations += 1;
    else counts.set(key, { project_id, kind, subject, bucket, validations: 1, addresses: 0 });
  };
  for (const row of rows) {
    for (const { kind, subject, addresses: seen } of subjectsOf(row)) {
      if (only && !only.has(kind)) continue;
      if (WINDOWED.has(kind)) bump(row.project_id, kind, subject, minuteOf(row.created_at));
      bump(row.project_id, kind, subject, TOTAL_BUCKET);
      for (const address of seen) {
        const key = keyOf(row.project_id, kind, subject, address);
        const found = addresses.get(key);
        if (!found) addresses.set(key, { project_id: row.project_id, kind, subject, address, last_seen: row.created_at });
        else if (row.created_at > found.last_seen) found.last_seen = row.created_at;
      }
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    counts: [...counts.entries()].sort(([a], [b]) => order(a, b)).map(([, v]) => v),
    addresses: [...addresses.entries()].sort(([a], [b]) => order(a, b)).map(([, v]) => v),
  };
}

export function valuesList(rows: number, columns: number): string {
  const one = `(${new Array(columns).fill('?').join(', ')})`;
  return new Array(rows).fill(one).join(', ');
}

/** knex.raw answers with an array of rows on SQLite and a result object holding them on PostgreSQL. */
export function rowsOf(result: unknown): Array<Record<string, unknown>> {
  return (Array.isArray(result) ? result : (result as { rows: Array<Record<string, unknown>> }).rows) ?? [];
}

/** The new address rows of `chunk` inserted; returns those inserted (project_id, kind, subject, address). */
export function newAddressesStatement(chunk: readonly AddressRow[]): Statement {
  return {
    sql: `insert into velocity_addresses (project_id, kind, subject, address, last_seen) values ${valuesList(chunk.length, 5)}
         on conflict (project_id, kind, subject, address) do nothing returning project_id, kind, subject, address`,
    bindings: chunk.flatMap((a) => [a.project_id, a.kind, a.subject, a.address, a.last_seen]),
  };
}

/** The address rows of `chunk` seen before: each keeps the later of its two times. */
export function seenAddressesStatement(chunk: readonly AddressRow[]): Statement {
  return {
    sql: `insert into velocity_addresses (project_id, kind, subject, address, last_seen) values ${valuesList(chunk.length, 5)}
         on conflict (project_id, kind, subject, address) do update set last_seen =
           case when excluded.last_seen > velocity_addresses.last_seen then excluded.last_seen else velocity_addresses.last_seen end`,
    bindings: chunk.flatMap((a) => [a.project_id, a.kind, a.subject, a.address, a.last_seen]),
  };
}

/** The counter rows of `chunk` added to those stored. */
export function countsUpsertStatement(chunk: readonly CountRow[]): Statement {
  return {
    sql: `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses) values ${valuesList(chunk.length, 6)}
       on conflict (project_id, kind, subject, bucket) do update set
         validations = velocity_counts.validations + excluded.validations,
         addresses = velocity_counts.addresses + excluded.addresses`,
    bindings: chunk.flatMap((c) => [c.project_id, c.kind, c.subject, c.bucket, c.validations, c.addresses]),
  };
}

/** `rows` in chunks of ROWS_PER_STATEMENT. */
export function chunksOf<T>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) chunks.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return chunks;
}

/**
 * A batch's counter writes as statements, for a caller that runs them in its transaction: first `first`
 * (the new address rows, each returning the rows it inserted), then, from their returned rows, `rest` (the
 * addresses seen before and the counters, a subject's distinct count raised by its new addresses). A new
 * address row adds one to its subject's distinct count, so two writers (two service instances on PostgreSQL)
 * never count one address twice. `increments()` is what the batch added (velocity-cache.ts).
 */
export function counterWrites(
  rows: readonly EventRow[],
  only?: ReadonlySet<CounterKind>,
): {
  first: Statement[];
  rest(inserted: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>): Statement[];
  increments(): { counts: CountRow[]; addresses: AddressRow[] };
} {
  const { counts, addresses } = aggregate(rows, only);
  const chunks = chunksOf(addresses);
  return {
    first: chunks.map(newAddressesStatement),
    rest(inserted) {
      // Each new address by its subject (an address may itself hold the separator: SQLite stores U+0000).
      const isNew = new Map<string, string>();
      for (const result of inserted)
        for (const r of result) {
          const subject = keyOf(String(r.project_id), String(r.kind), String(r.subject));
          isNew.set(keyOf(subject, String(r.address)), subject);
        }
      const statements: Statement[] = [];
      for (const chunk of chunks) {
        const seen = chunk.filter((a) => !isNew.has(keyOf(a.project_id, a.kind, a.subject, a.address)));
        if (seen.length > 0) statements.push(seenAddressesStatement(seen));
      }
      if (isNew.size > 0) {
        const totals = new Map(counts.filter((c) => c.bucket === TOTAL_BUCKET).map((c) => [keyOf(c.project_id, c.kind, c.subject), c]));
        for (const subject of isNew.values()) {
          const total = totals.get(subject);
          if (total) total.addresses += 1;
        }
      }
      for (const chunk of chunksOf(counts)) statements.push(countsUpsertStatement(chunk));
      return statements;
    },
    increments: () => ({ counts, addresses }),
  };
}

/** Upserts the counters of a batch of events inside the caller's transaction (counterWrites); returns the increments made. */
export async function writeCounters(
  trx: Knex.Transaction,
  rows: readonly EventRow[],
  only?: ReadonlySet<CounterKind>,
): Promise<{ counts: CountRow[]; addresses: AddressRow[] }> {
  const writes = counterWrites(rows, only);
  const run = async ({ sql, bindings }: Statement) => rowsOf(await trx.raw(sql, bindings as Knex.RawBinding[]));
  const inserted: Array<Array<Record<string, unknown>>> = [];
  for (const statement of writes.first) inserted.push(await run(statement));
  for (const statement of writes.rest(inserted)) await run(statement);
  return writes.increments();
}

// ---- reads: each statement returns at most MAX_WINDOW_BUCKETS + 1 or `limit` rows ----

/**
 * A row limit written into the statement, not bound: SQLite plans with a LIMIT's value, so a bound one
 * makes it parse and plan the statement again on every run (twice the cost of these reads). Few distinct
 * limits are used, so few statements are kept prepared.
 */
export function limitClause(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`a row limit must be a whole number of at least 0, not ${limit}`);
  return `limit ${limit}`;
}

const COUNTS_SQL = `select bucket, validations, addresses from velocity_counts where project_id = ? and kind = ? and subject = ? and bucket >= ? order by bucket desc ${limitClause(MAX_WINDOW_BUCKETS + 1)}`;

/** The total row and the minute rows from `fromBucket` on, newest first, at most MAX_WINDOW_BUCKETS of them. */
export function countsStatement(projectId: string, kind: CounterKind, subject: string, fromBucket: number): Statement {
  return { sql: COUNTS_SQL, bindings: [projectId, kind, subject, fromBucket] };
}

/** The subject's most recently seen addresses, newest first. */
export function addressesStatement(projectId: string, kind: CounterKind, subject: string, limit: number): Statement {
  return {
    sql: `select address, last_seen from velocity_addresses where project_id = ? and kind = ? and subject = ? order by last_seen desc ${limitClause(limit)}`,
    bindings: [projectId, kind, subject],
  };
}

/** A subject's history from the rows of its two statements: totals, minute rows newest first, addresses newest first. */
export function historyOf(
  counts: ReadonlyArray<Record<string, unknown>>,
  addresses: ReadonlyArray<Record<string, unknown>>,
): { total: number; distinct: number; minutes: Array<[number, number]>; addresses: Array<{ address: string; last_seen: number }> } {
  let total = 0;
  let distinct = 0;
  const minutes: Array<[number, number]> = [];
  for (const row of counts) {
    const bucket = toNumber(row.bucket);
    if (bucket === TOTAL_BUCKET) {
      total = toNumber(row.validations);
      distinct = toNumber(row.addresses);
    } else minutes.push([bucket, toNumber(row.validations)]);
  }
  return { total, distinct, minutes, addresses: addresses.map((r) => ({ address: String(r.address), last_seen: toNumber(r.last_seen) })) };
}

// ---- retention ----

/** What an event being deleted counted under: the columns subjectsOf reads. */
export const COUNTED_COLUMNS = ['project_id', 'base_email', 'email_lower', 'ipv4', 'ipv6', 'device', 'created_at'] as const;

/**
 * Takes events about to be deleted off their subjects' totals (inside the deleting transaction), so the
 * totals stay exactly those of the events kept, and drops totals left at zero.
 */
export async function subtractEvents(trx: Knex.Transaction, rows: ReadonlyArray<Record<(typeof COUNTED_COLUMNS)[number], unknown>>): Promise<void> {
  const events = rows.map((r) => ({ ...r, created_at: toNumber(r.created_at) }) as unknown as EventRow);
  const totals = aggregate(events).counts.filter((c) => c.bucket === TOTAL_BUCKET);
  for (const t of totals) {
    const total = trx('velocity_counts').where({ project_id: t.project_id, kind: t.kind, subject: t.subject, bucket: TOTAL_BUCKET });
    await total.clone().update({ validations: trx.raw('validations - ?', [t.validations]) });
    await total.clone().where('validations', '<=', 0).del();
  }
}

/**
 * Deletes at most `batchSize` minute rows entirely before `cutoff`, and at most `batchSize` address rows
 * last seen before it (taking each off its subject's distinct count). Returns the rows deleted.
 */
export async function pruneCountersBatch(knex: Knex, cutoff: number, batchSize: number): Promise<number> {
  return knex.transaction(async (trx) => {
    const columns = ['project_id', 'kind', 'subject', 'bucket'];
    const minutes = await trx('velocity_counts')
      .whereIn(columns, trx('velocity_counts').select(columns).where('bucket', '<', minuteOf(cutoff)).limit(batchSize))
      .del();
    const gone = (await trx('velocity_addresses')
      .select('project_id', 'kind', 'subject', 'address')
      .where('last_seen', '<', cutoff)
      .limit(batchSize)) as Array<{ project_id: string; kind: string; subject: string; address: string }>;
    if (gone.length > 0) {
      await trx.raw(
        `delete from velocity_addresses where (project_id, kind, subject, address) in (values ${valuesList(gone.length, 4)})`,
        gone.flatMap((g) => [g.project_id, g.kind, g.subject, g.address]),
      );
      const minus = new Map<string, { project_id: string; kind: string; subject: string; n: number }>();
      for (const g of gone) {
        const key = keyOf(g.project_id, g.kind, g.subject);
        const found = minus.get(key) ?? { project_id: g.project_id, kind: g.kind, subject: g.subject, n: 0 };
        found.n += 1;
        minus.set(key, found);
      }
      for (const m of minus.values()) {
        await trx('velocity_counts')
          .where({ project_id: m.project_id, kind: m.kind, subject: m.subject, bucket: TOTAL_BUCKET })
          .update({ addresses: trx.raw('addresses - ?', [m.n]) });
      }
    }
    return minutes + gone.length;
  });
}
