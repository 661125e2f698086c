// The store's hot path alone, in process, no HTTP: CPU µs (every thread of the process; better-sqlite3 runs the
// statements on the event loop) per event written in commits of 32 (each a verify's event, with its decision's id), and per velocity read
// (byIp, an IP with 150 addresses, the velocity plugin's six windows and 100 addresses, and the plugin's facts
// worked out from the answer) from memory (velocity-cache.ts) and through the read statements, over every
// thread and on the event loop alone. With `--baseline DIR` (a built checkout of another revision) both are
// measured there too, each in a process of its own, alternately.
//
//   npx tsc -p tsconfig.json && node dist/bench/store.js [--baseline DIR]
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { v7 as uuidv7 } from 'uuid';

const ROUNDS = 2;
const COMMITS = 600;
const PER_COMMIT = 32;

interface StoreModule {
  openDatabase(url: string): Promise<{
    migrate(): Promise<void>;
    close(): Promise<void>;
    knex: unknown;
    events: {
      record(e: Record<string, unknown>): Promise<void>;
      velocityReader(p: string): { byIp(q: Record<string, unknown>): Promise<unknown> };
    };
  }>;
}

const cpuUs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return u.user + u.system;
};

/** CPU µs of the calling thread (Linux; 10 ms ticks), 0 elsewhere. */
function threadCpuUs(): number {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

/** Child mode: writes (and reads, unless --no-reads) in one store; prints JSON. */
async function measure(root: string, reads: boolean): Promise<void> {
  const { openDatabase } = (await import(pathToFileURL(join(root, 'dist/src/store/database.js')).href)) as StoreModule;
  const dir = mkdtempSync(join(tmpdir(), 'email-trust-bench-store-'));
  const file = join(dir, 'store.sqlite');
  const store = await openDatabase(`sqlite:${file}`);
  await store.migrate();
  const now = Date.now();
  let n = 0;
  const event = (ip: string, at: number) => {
    n += 1;
    const email = `u${n}@example.com`;
    // As verify records it, its decision's id, request id, codes and policy included (a build before them ignores those).
    const decision = {
      decisionId: uuidv7(),
      requestId: randomUUID(),
      policyName: 'default',
      policyRevision: 'c14b9ce80c5d899b',
      warnings: ['local_is_role_based'],
    };
    return { projectId: 'prj_bench', endpoint: 'verify', email, emailLower: email, baseEmail: email, action: 'allow', ipv4: ip, createdAt: at, ...decision };
  };
  const commit = () => Promise.all(Array.from({ length: PER_COMMIT }, () => store.events.record(event(`192.0.2.${n % 250}`, now + n))));
  for (let i = 0; i < 100; i++) await commit();
  const t = process.cpuUsage();
  for (let i = 0; i < COMMITS; i++) await commit();
  const out: Record<string, number> = { write_us_per_event: Number((cpuUs(t) / (COMMITS * PER_COMMIT)).toFixed(1)) };
  if (reads) {
    const { createEvents, knexReads } = await import(pathToFileURL(join(root, 'dist/src/store/events.js')).href);
    for (let i = 0; i < 150; i++) await store.events.record(event('198.51.100.9', now - i * 7_000));
    const since = [5, 10, 15, 30, 120, 180].map((m) => now - m * 60_000);
    // As the velocity plugin reads and uses the answer.
    const email = 'new@example.com';
    const query = { ipv4: '198.51.100.9', ipv6: null, since, limit: 100 };
    const { velocityFacts } = (await import(pathToFileURL(join(root, 'dist/plugins/velocity/windows.js')).href)) as {
      velocityFacts(email: string, now: number, history: unknown): unknown;
    };
    const statements = createEvents(store.knex, knexReads(store.knex)); // the same reads without the cache
    for (const [name, events] of [
      ['read_us_from_memory', store.events],
      ['read_us_statements', statements],
    ] as const) {
      const reader = events.velocityReader('prj_bench');
      const read = async () => velocityFacts(email, now, await reader.byIp(query));
      for (let i = 0; i < 2_000; i++) await read();
      const r = process.cpuUsage();
      const main = threadCpuUs();
      for (let i = 0; i < 20_000; i++) await read();
      out[name] = Number((cpuUs(r) / 20_000).toFixed(1));
      out[`${name}_event_loop`] = Number(((threadCpuUs() - main) / 20_000).toFixed(1));
    }
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(out));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const child = args.indexOf('--child');
  if (child >= 0) return measure(resolve(args[child + 1] as string), args.includes('--reads'));
  const here = resolve(import.meta.dirname, '../..');
  const at = args.indexOf('--baseline');
  const baseline = at >= 0 ? resolve(args[at + 1] as string) : null;
  const run = (root: string, reads: boolean) =>
    JSON.parse(execFileSync(process.execPath, [import.meta.filename, '--child', root, ...(reads ? ['--reads'] : [])], { encoding: 'utf8' }).trim()) as Record<
      string,
      number
    >;
  for (let round = 1; round <= ROUNDS; round++) {
    if (baseline) console.log(`round ${round} baseline ${baseline}: ${JSON.stringify(run(baseline, true))}`);
    console.log(`round ${round} this: ${JSON.stringify(run(here, true))}`);
  }
}

await main();
