// What an event costs the store thread as history grows (issue 12), in process, no HTTP: events written
// through the store thread's own commit (sqlite-writes.ts, prepareEventCommit) in commits of 32 (or of
// `--per-commit N`: 1 to 2 at a fixed 1,000 verifies a second, about 7 under verify's full load), a passive
// checkpoint every 2,500 events as sqlite-checkpoints.ts runs one, on a migrated file. Every 25,000 events:
// CPU µs per event of the commits and of the checkpoints, and the process's writes per event (syscalls and
// KiB, /proc/self/io). At the end: the WAL frames (pages) one commit writes per event, by table and index
// (dbstat), after truncating checkpoints. The traffic is the bench's: a distinct address per event, one of
// 1,000 IPv4 addresses in turn (so a young database has neighbouring IPs on one page; past about 100
// events per IP each IP's rows fill pages of their own: the plateau).
//
//   npx tsc -p tsconfig.json && node dist/bench/store-frames.js [--events N] [--per-commit N] [--root DIR]
//
// `--root DIR`: a built checkout of another revision, to compare (its dist/src/store is measured).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

const REPORT_EVERY = 25_024; // a whole number of commits
const CHECKPOINT_EVERY = 2_500;
const FRAME_COMMITS = 20;

interface Row {
  project_id: string;
  endpoint: string;
  email: string;
  email_lower: string;
  base_email: string;
  domain: string;
  ipv4: string;
  ipv6: null;
  device: null;
  action: string;
  risk_score: number;
  policy_revision: string;
  recorded_facts: string;
  created_at: number;
}

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Bytes and write calls of this process so far. */
function written(): { bytes: number; calls: number } {
  const io = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(io)?.[1] ?? 0);
  return { bytes: field('wchar'), calls: field('syscw') };
}

async function main(): Promise<void> {
  const root = resolve(arg('--root') ?? resolve(import.meta.dirname, '../..'));
  const total = Number(arg('--events') ?? 150_000);
  const perCommit = Number(arg('--per-commit') ?? 32);
  if (!(Number.isInteger(perCommit) && perCommit >= 1 && REPORT_EVERY % perCommit === 0)) {
    throw new Error(`--per-commit: a whole number of rows that divides ${REPORT_EVERY} (1, 2, 4, 8, 16, 32 …), not ${arg('--per-commit')}`);
  }
  const load = (file: string) => import(pathToFileURL(join(root, 'dist/src/store', file)).href);
  const { openDatabase } = await load('database.js');
  const { PRAGMAS, prepareEventCommit } = await load('sqlite-writes.js');
  const Database = createRequire(join(root, 'package.json'))('better-sqlite3') as typeof BetterSqlite3;

  const dir = mkdtempSync(join(tmpdir(), 'email-trust-store-frames-'));
  const file = join(dir, 'store.sqlite');
  try {
    const store = await openDatabase(`sqlite:${file}`);
    await store.migrate();
    await store.close();
    const db = new Database(file);
    for (const pragma of PRAGMAS as string[]) db.pragma(pragma);
    const checkpointer = new Database(file);
    const commit = prepareEventCommit(db) as (rows: Row[]) => unknown;

    const start = Date.now();
    let n = 0;
    const row = (): Row => {
      n += 1;
      const ip = n % 1_000;
      const email = `user.${n}+tag@example.com`;
      return {
        project_id: 'prj_bench',
        endpoint: 'verify',
        email,
        email_lower: email,
        base_email: `user.${n}@example.com`,
        domain: 'example.com',
        ipv4: `198.51.${Math.floor(ip / 256)}.${ip % 256}`,
        ipv6: null,
        device: null,
        action: 'allow',
        risk_score: 10,
        policy_revision: 'bench',
        recorded_facts: '{"mx_record_status":"not_checked","distinct_emails_in_ip":1}',
        created_at: start + Math.floor(n * 0.4), // 2,500 events a second
      };
    };
    const batch = () => Array.from({ length: perCommit }, row);

    console.log(`${root}: ${total} events in commits of ${perCommit}, 1,000 IPs in turn`);
    console.log('events   commit µs/event   checkpoint µs/event   writes/event   KiB written/event');
    let commitUs = 0;
    let checkpointUs = 0;
    let since = 0;
    let io = written();
    while (n < total) {
      const t = cpuUs();
      commit(batch());
      commitUs += cpuUs() - t;
      since += perCommit;
      if (n % CHECKPOINT_EVERY < perCommit) {
        const c = cpuUs();
        checkpointer.pragma('wal_checkpoint(PASSIVE)');
        checkpointUs += cpuUs() - c;
      }
      if (n % REPORT_EVERY === 0 || n >= total) {
        const now = written();
        const per = (x: number) => (x / since).toFixed(1);
        console.log(
          `${String(n).padStart(7)}   ${per(commitUs).padStart(15)}   ${per(checkpointUs).padStart(19)}   ${per(now.calls - io.calls).padStart(12)}   ${per((now.bytes - io.bytes) / 1024).padStart(17)}`,
        );
        commitUs = 0;
        checkpointUs = 0;
        since = 0;
        io = now;
      }
    }

    // Frames one commit writes, by the table or index each page belongs to (a page new to the file: "new page").
    db.pragma('wal_checkpoint(TRUNCATE)');
    const owner = new Map((db.prepare('select name, pageno from dbstat').all() as Array<{ name: string; pageno: number }>).map((r) => [r.pageno, r.name]));
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const frames = new Map<string, number>();
    let all = 0;
    for (let c = 0; c < FRAME_COMMITS; c++) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      commit(batch());
      const wal = readFileSync(`${file}-wal`);
      for (let at = 32; at + 24 <= wal.length; at += 24 + pageSize) {
        const name = owner.get(wal.readUInt32BE(at)) ?? 'new page';
        frames.set(name, (frames.get(name) ?? 0) + 1);
        all += 1;
      }
    }
    const events = FRAME_COMMITS * perCommit;
    console.log(`WAL frames per event after ${n} events: ${(all / events).toFixed(2)}`);
    for (const [name, count] of [...frames].sort((a, b) => b[1] - a[1])) console.log(`  ${(count / events).toFixed(2).padStart(5)}  ${name}`);
    checkpointer.close();
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
