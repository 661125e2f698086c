// Policy replay (issue 14): `email-trust policy replay` over BENCH_REPLAY_EVENTS stored verify events
// (default 1,000,000) of one project on an embedded SQLite file, with the built CLI in a child process as a
// user runs it, the strict-signup policy as the candidate. The events are written through the store's own
// write path (Events.record), addresses distinct, a third of them with an IPv4 address, each carrying the
// network and history facts the default policy's decision read (taken from real evaluations of a pool of
// requests, network checks off). Prints the write time, the bytes the recorded facts take per event, the
// replay's wall time and rate; --write merges them into bench/results.json (`replay`).
// Target: 1,000,000 events in under a minute on this machine.
// BENCH_REPLAY_LABELS=on labels every event (one in ten fraud, the rest legitimate; half by the event, half by
// the address, so both of forEvents' statements read) and replays with --labels (`replay_labels`).
//
//   npx tsc -p tsconfig.json && node dist/bench/replay.js [--write]
//   BENCH_ONLY=replay node dist/bench/run.js          (the same, with --write)
//   BENCH_REPLAY_DB=/tmp/replay.sqlite …              (keeps the database between runs: written once)
//   BENCH_REPLAY_EVENTS=100000 BENCH_REPLAY_LABELS=on node dist/bench/replay.js   (issue 50: 100,000 labelled events)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../plugins/index.js';
import { FactCatalog } from '../src/engine/catalog.js';
import { noHistory } from '../src/engine/no-history.js';
import { OFFLINE } from '../src/network/offline.js';
import { policiesDir } from '../src/paths.js';
import { PolicyBook } from '../src/policy/book.js';
import type { CompiledPolicy } from '../src/policy/compile.js';
import { evaluate } from '../src/policy/evaluate.js';
import { openDatabase, type Store } from '../src/store/database.js';
import { addressSubject, eventSubject } from '../src/store/labels.js';

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const root = fileURLToPath(new URL('../..', import.meta.url));
const PROJECT = 'bench-replay';
const IN_FLIGHT = 20_000;
const LABELS = process.env.BENCH_REPLAY_LABELS === 'on';
/** Label rows per insert: 19 columns each, within SQLite's bound variables. */
const LABEL_ROWS = 500;

const DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'example.com', 'mailinator.com', 'gmial.com', 'acme.co', 'corp.example.org'];
for (let i = 0; i < 300; i += 1) DOMAINS.push(`company${i}.com`);

interface Request {
  email: string;
  ipv4: string | null;
}

function requestOf(i: number): Request {
  const domain = DOMAINS[(i * 7919) % DOMAINS.length] as string;
  const local = i % 50 === 0 ? 'support' : i % 13 === 0 ? `first.last+${i}` : `user${i}`;
  return { email: `${local}@${domain}`, ipv4: i % 3 === 0 ? `198.51.${(i >> 8) & 255}.${i & 255}` : null };
}

/** The recorded facts of a real decision of the default policy, one per (domain, with or without IP). */
async function recordedPool(policy: CompiledPolicy): Promise<Map<string, { action: string; facts: Record<string, unknown> }>> {
  const pool = new Map<string, { action: string; facts: Record<string, unknown> }>();
  for (let i = 0; pool.size < DOMAINS.length * 2 && i < 100_000; i += 1) {
    const r = requestOf(i);
    const key = `${r.email.split('@')[1]}|${r.ipv4 === null}`;
    if (pool.has(key)) continue;
    const services = { velocity: noHistory, network: OFFLINE, now: Date.now };
    const evaluation = await evaluate(policy, { email: r.email, ipv4: r.ipv4, ipv6: null, device: null, softCheck: false, projectId: 'bench' }, services);
    pool.set(key, { action: evaluation.decision.action, facts: await evaluation.recorded() });
  }
  return pool;
}

async function writeEvents(url: string): Promise<{ seconds: number; bytesPerEvent: number }> {
  const store = await openDatabase(url);
  try {
    await store.migrate();
    const project = (await store.projects.getByName(PROJECT)) ?? (await store.projects.create({ name: PROJECT, sandbox: false, policy: 'default' }));
    const policy = PolicyBook.load(policiesDir, new FactCatalog(registry)).byName('default') as CompiledPolicy;
    const pool = await recordedPool(policy);
    const now = Date.now();
    const started = process.hrtime.bigint();
    for (let done = 0; done < EVENTS; ) {
      const end = Math.min(EVENTS, done + IN_FLIGHT);
      const writes: Promise<void>[] = [];
      for (let i = done; i < end; i += 1) {
        const r = requestOf(i);
        const recorded = pool.get(`${r.email.split('@')[1]}|${r.ipv4 === null}`);
        const lower = r.email.toLowerCase();
        writes.push(
          store.events.record({
            projectId: project.id,
            endpoint: 'verify',
            email: r.email,
            emailLower: lower,
            baseEmail: lower,
            domain: r.email.split('@')[1] ?? null,
            ipv4: r.ipv4,
            action: recorded?.action ?? 'allow',
            recordedFacts: recorded?.facts ?? null,
            createdAt: now - 6 * 86_400_000 + Math.floor((i * 6 * 86_400_000) / EVENTS),
          }),
        );
      }
      await Promise.all(writes);
      done = end;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (LABELS) await writeLabels(store, project.id, now);
    const [row] = await store
      .knex('events')
      .avg({ bytes: store.knex.raw('length(recorded_facts)') })
      .where({ project_id: project.id });
    return { seconds, bytesPerEvent: Math.round(Number(row?.bytes ?? 0)) };
  } finally {
    await store.close();
  }
}

/**
 * A label for every event, inserted in bulk (the bench measures the replay's read of labels, not feedback's
 * write path, whose counters the replay never reads).
 */
async function writeLabels(store: Store, projectId: string, now: number): Promise<void> {
  const started = process.hrtime.bigint();
  const events = (await store.knex('events').select('id', 'email', 'base_email').where({ project_id: projectId }).orderBy('id')) as Array<{
    id: number;
    email: string;
    base_email: string;
  }>;
  for (let from = 0; from < events.length; from += LABEL_ROWS) {
    const rows = events.slice(from, from + LABEL_ROWS).map((e, j) => {
      const i = from + j;
      const byEvent = i % 2 === 0;
      return {
        project_id: projectId,
        subject: byEvent ? eventSubject(Number(e.id)) : addressSubject(e.base_email, null),
        event_id: byEvent ? Number(e.id) : null,
        decision_id: null,
        email: e.email,
        base_email: e.base_email,
        domain: null,
        ipv4: null,
        ipv6: null,
        device: null,
        label: i % 10 === 0 ? 'fraud' : 'legitimate',
        note: null,
        source: 'import',
        labelled_at: now,
        shared: false,
        revision: 1,
        change_id: `bench-${i}`,
        created_at: now,
        updated_at: now,
      };
    });
    await store.knex('labels').insert(rows).onConflict(['project_id', 'subject']).ignore();
  }
  console.log(`labelled ${events.length.toLocaleString('en')} events in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`);
}

export async function replayBench(): Promise<Record<string, unknown>> {
  const keep = process.env.BENCH_REPLAY_DB;
  const dir = keep ? null : mkdtempSync(join(tmpdir(), 'et-bench-replay-'));
  const file = keep ?? join(dir as string, 'replay.sqlite');
  const url = `sqlite:${file}`;
  try {
    const written = keep && existsSync(file) ? null : await writeEvents(url);
    if (written)
      console.log(
        `wrote ${EVENTS.toLocaleString('en')} events in ${written.seconds.toFixed(1)} s; recorded facts: ${written.bytesPerEvent} bytes per event on average`,
      );
    const started = process.hrtime.bigint();
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'bin/email-trust.js'),
        'policy',
        'replay',
        '--project',
        PROJECT,
        '--policy',
        join(root, 'policies/strict-signup.yaml'),
        '--json',
        ...(LABELS ? ['--labels'] : []),
      ],
      { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 },
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (run.status !== 0) throw new Error(`policy replay exited with ${run.status}`);
    const report = JSON.parse(run.stdout) as { events: number; changed: number; not_replayed: unknown[]; labels?: { labelled: number; unlabelled: number } };
    const figures = {
      date: new Date().toISOString(),
      events: report.events,
      changed: report.changed,
      replay_seconds: Number(seconds.toFixed(1)),
      events_per_second: Math.round(report.events / seconds),
      ...(written ? { write_seconds: Number(written.seconds.toFixed(1)), recorded_facts_bytes_per_event: written.bytesPerEvent } : {}),
      not_replayed: report.not_replayed,
      ...(report.labels ? { labelled: report.labels.labelled, unlabelled: report.labels.unlabelled } : {}),
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await replayBench();
  if (process.argv.includes('--write')) {
    const file = join(root, 'bench/results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify({ ...results, [LABELS ? 'replay_labels' : 'replay']: figures }, null, 2)}\n`);
  }
}
