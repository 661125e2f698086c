// `events list` over a long history (issue 49, point 4): BENCH_EVENTS_COUNT events (default 1,000,000) of one
// project in a PostgreSQL database of its own (created and dropped on BENCH_POSTGRES_URL), written by one
// INSERT … SELECT over generate_series (the store's schema and indexes, the write path's spellings: 200,000
// addresses of about 5 events each on 300 domains, 50,000 IPs of 20 events each, a tenth of them IPv6; 85 %
// allow, 10 % challenge, 5 % block; spread over 7 days), then the store's read (Events.list, limit 20) timed
// BENCH_EVENTS_RUNS times (default 50) per filter, each run another subject: an address, an IP, an action, no
// filter, and an action no event has (the read that stops at SCAN_LIMIT). Prints and returns the median and
// p99 ms of each. Target: --email under 100 ms.
//
//   npx tsc -p tsconfig.json && node dist/bench/events.js [--write]
//   BENCH_ONLY=events node dist/bench/run.js          (the same, with --write)
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { packageRoot } from '../src/paths.js';
import { openDatabase, type Store } from '../src/store/database.js';
import type { DecisionFilter } from '../src/store/decisions.js';

const EVENTS = Number(process.env.BENCH_EVENTS_COUNT ?? 1_000_000);
const RUNS = Number(process.env.BENCH_EVENTS_RUNS ?? 50);
const ADDRESSES = 200_000;
const IPS = 50_000;
const BATCH = 100_000;
const SPREAD_MS = 7 * 86_400_000;

/** Writes rows first … last of the history: one statement, computed by the server. */
const FILL = `
with s as (select g, (g * 7919) % ${ADDRESSES} as k, g % ${IPS} as j from generate_series(?::bigint, ?::bigint) as g)
insert into events (project_id, endpoint, email, email_lower, base_email, domain, ipv4, ipv6, action, errors,
  policy_name, policy_revision, decision_id, created_at)
select ?, 'verify', 'user' || k || '@company' || (k % 300) || '.com', 'user' || k || '@company' || (k % 300) || '.com',
  'user' || k || '@company' || (k % 300) || '.com', 'company' || (k % 300) || '.com',
  case when g % 10 = 0 then null else '10.' || (j / 65536) || '.' || ((j / 256) % 256) || '.' || (j % 256) end,
  case when g % 10 = 0 then '2001:db8::' || to_hex(j) else null end,
  case when g % 20 = 0 then 'block' when g % 10 = 1 then 'challenge' else 'allow' end,
  case when g % 20 = 0 then 'domain_is_disposable' else null end,
  'default', 'bench000000000000', gen_random_uuid()::text, ?::bigint + g * ${Math.floor(SPREAD_MS / EVENTS)}
from s`;

const ipOf = (j: number) => `10.${Math.floor(j / 65_536)}.${Math.floor(j / 256) % 256}.${j % 256}`;

/** Each run's filter: another subject every run. */
const FILTERS: Record<string, (run: number) => Omit<DecisionFilter, 'projectId' | 'limit'>> = {
  email: (run) => {
    const k = (run * 104_729 + 17) % ADDRESSES;
    const address = `user${k}@company${k % 300}.com`;
    return { email: { base: address, lower: address } };
  },
  // An IPv4 subject: every tenth j is IPv6 only.
  ip: (run) => ({ ip: ipOf(((run * 7_919) % (IPS / 10)) * 10 + 3) }),
  action: (run) => ({ action: run % 2 === 0 ? 'block' : 'challenge' }),
  none: () => ({}),
  action_absent: () => ({ action: 'quarantine' }),
};

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
const round = (ms: number) => Math.round(ms * 100) / 100;

async function fill(store: Store, projectId: string): Promise<number> {
  const started = performance.now();
  const first = Date.now() - SPREAD_MS;
  for (let from = 0; from < EVENTS; from += BATCH) {
    await store.knex.raw(FILL, [from, Math.min(EVENTS, from + BATCH) - 1, projectId, first]);
    process.stderr.write(`\rwrote ${Math.min(EVENTS, from + BATCH).toLocaleString('en')} events`);
  }
  process.stderr.write('\n');
  // As autovacuum leaves a table that took a day's writes: statistics and the visibility map up to date.
  await store.knex.raw('vacuum analyze events');
  return (performance.now() - started) / 1000;
}

async function measure(store: Store, projectId: string): Promise<Record<string, { median_ms: number; p99_ms: number; found: number; bounded: boolean }>> {
  const figures: Record<string, { median_ms: number; p99_ms: number; found: number; bounded: boolean }> = {};
  for (const [name, filterOf] of Object.entries(FILTERS)) {
    for (let run = 0; run < 5; run += 1) await store.events.list({ projectId, limit: 20, ...filterOf(RUNS + run) });
    const times: number[] = [];
    let last = { events: [] as unknown[], bounded: false };
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      last = await store.events.list({ projectId, limit: 20, ...filterOf(run) });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    figures[name] = { median_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)), found: last.events.length, bounded: last.bounded };
  }
  return figures;
}

export async function eventsBench(): Promise<Record<string, unknown>> {
  const url = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  const name = `bench_events_${randomBytes(4).toString('hex')}`;
  await admin.raw('create database ??', [name]);
  try {
    const target = new URL(url);
    target.pathname = `/${name}`;
    const store = await openDatabase(target.toString());
    try {
      await store.migrate();
      const project = await store.projects.create({ name: 'bench-events', policy: 'default' });
      const writeSeconds = await fill(store, project.id);
      const reads = await measure(store, project.id);
      const figures = {
        date: new Date().toISOString(),
        database: 'postgres',
        events: EVENTS,
        runs: RUNS,
        write_seconds: Math.round(writeSeconds * 10) / 10,
        list_ms: reads,
        target: { email_p99_under_100_ms: (reads.email?.p99_ms ?? Number.POSITIVE_INFINITY) < 100 },
      };
      console.log(JSON.stringify(figures, null, 2));
      return figures;
    } finally {
      await store.close();
    }
  } finally {
    await admin.raw('drop database if exists ?? with (force)', [name]);
    await admin.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await eventsBench();
  if (process.argv.includes('--write')) {
    const file = join(packageRoot, 'bench/results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify({ ...results, events: figures }, null, 2)}\n`);
  }
}
