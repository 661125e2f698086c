// One policy evaluation in process, without HTTP or storage: µs of CPU per run of the default policy, with
// and without an IPv4 address, (a) the decision alone and (b) the decision plus every fact verify shows with
// show_results (what /v1/public/verify computes). Velocity reads an empty history, so the figures are the
// engine's and the plugins' own. CPU time (user + system of the process), not wall time, so that other work
// on a shared machine counts less.
//
//   npx tsc -p tsconfig.json && node dist/bench/evaluate.js [--json]
//   node dist/bench/evaluate.js --baseline /path/to/other/checkout [--write]   (built, with this file in its bench/)
//   node dist/bench/evaluate.js --counts   (promises and KB allocated per evaluation: counts, not timings)
//   node dist/bench/evaluate.js --after-wait   (one evaluation back to back and after pauses: what an idle core costs)
//
// With --baseline, this checkout and the other one each run in a process of their own, in alternating
// rounds, and the ratio of their medians is printed: a before/after comparison from one run, however busy
// the machine; --write merges the figures into bench/results.json (`evaluate`). BENCH_EVALUATIONS sets the
// runs per case and round (default 2,000), BENCH_ROUNDS the rounds (default 5).
import { createHook } from 'node:async_hooks';
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../plugins/index.js';
import { FactCatalog } from '../src/engine/catalog.js';
import { noHistory } from '../src/engine/no-history.js';
import type { RequestInput } from '../src/engine/plugin.js';
import { OFFLINE } from '../src/network/offline.js';
import { policiesDir } from '../src/paths.js';
import { PolicyBook } from '../src/policy/book.js';
import type { CompiledPolicy } from '../src/policy/compile.js';
import { evaluate } from '../src/policy/evaluate.js';

const RUNS = Number(process.env.BENCH_EVALUATIONS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_UP = 3_000;
/** Most traffic repeats a few domains: the bench's verify load uses one, these add a free provider and a subdomain. */
const DOMAINS = ['example.com', 'gmail.com', 'mail.example.org', 'outlook.com'];

const CASES = [
  { name: 'decision, no IP', withIp: false, respond: false },
  { name: 'decision, IPv4', withIp: true, respond: false },
  { name: 'decision + show_results facts, no IP', withIp: false, respond: true },
  { name: 'decision + show_results facts, IPv4', withIp: true, respond: true },
] as const;

export interface EvaluateCase {
  name: string;
  /** CPU µs per evaluation, median of the rounds. */
  us_per_run: number;
}

export interface EvaluateFigures {
  date: string;
  node: string;
  runs: number;
  rounds: number;
  rules: number;
  cases: EvaluateCase[];
}

function inputOf(n: number, withIp: boolean): RequestInput {
  const host = n % 1000;
  return {
    email: `user.${n}+tag@${DOMAINS[n % DOMAINS.length]}`,
    ipv4: withIp ? `198.51.${Math.floor(host / 256)}.${host % 256}` : null,
    ipv6: null,
    softCheck: false,
    projectId: 'bench',
    device: null,
  };
}

/** The default policy, and the facts verify reads for its response with show_results: every fact of the enabled plugins. */
function subject(): { policy: CompiledPolicy; shown: string[] } {
  const catalog = new FactCatalog(registry);
  const policy = PolicyBook.load(policiesDir, catalog).byName('default');
  if (!policy) throw new Error('policies/default.yaml is missing');
  return { policy, shown: policy.enabledPlugins.flatMap((plugin) => Object.keys(plugin.facts)) };
}

let counter = 0;

async function once(policy: CompiledPolicy, withIp: boolean, shown: readonly string[] | null): Promise<void> {
  counter += 1;
  const now = 1_790_000_000_000 + counter;
  const evaluation = await evaluate(policy, inputOf(counter, withIp), { velocity: noHistory, network: OFFLINE, now: () => now });
  if (!shown) return;
  // As verify reads them: in one group (a baseline build from before issue 47 had factsNow: the same read, without a wait).
  const atHand = (evaluation as { factsNow?: (names: readonly string[]) => unknown[] | null }).factsNow?.(shown);
  if (!atHand) await evaluation.facts(shown);
  await evaluation.checkedTypes();
  await evaluation.steps();
}

/** CPU µs per evaluation over `runs` runs of one case. */
async function timeCase(s: { policy: CompiledPolicy; shown: string[] }, index: number, runs: number): Promise<number> {
  const c = CASES[index] as (typeof CASES)[number];
  const shown = c.respond ? s.shown : null;
  const before = process.cpuUsage();
  for (let n = 0; n < runs; n++) await once(s.policy, c.withIp, shown);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / runs;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.floor(sorted.length / 2)] as number) * 10) / 10;
};

/** This checkout's figures, in this process. */
export async function measureEvaluate(): Promise<EvaluateFigures> {
  const s = subject();
  for (let i = 0; i < CASES.length; i++) await timeCase(s, i, WARM_UP);
  const samples: number[][] = CASES.map(() => []);
  for (let round = 0; round < ROUNDS; round++) for (let i = 0; i < CASES.length; i++) samples[i]?.push(await timeCase(s, i, RUNS));
  return {
    date: new Date().toISOString(),
    node: process.version,
    runs: RUNS,
    rounds: ROUNDS,
    rules: s.policy.ruleCount,
    cases: CASES.map((c, i) => ({ name: c.name, us_per_run: median(samples[i] ?? []) })),
  };
}

/** A checkout's bench in a child process that times one case per message. */
function worker(root: string) {
  const child = fork(join(root, 'dist/bench/evaluate.js'), ['--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (message: { case: number; runs: number }) =>
    new Promise<number>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the bench of ${root} exited with code ${code}`));
      child.once('exit', exited);
      child.once('message', (reply) => {
        child.off('exit', exited);
        resolve(reply as number);
      });
      child.send(message);
    });
  return { ask, stop: () => child.kill() };
}

/** This checkout against `baselineRoot`, in alternating rounds. */
async function compare(baselineRoot: string): Promise<void> {
  const here = join(fileURLToPath(import.meta.url), '../../..');
  const sides = [worker(baselineRoot), worker(here)];
  try {
    for (const side of sides) for (let i = 0; i < CASES.length; i++) await side.ask({ case: i, runs: WARM_UP });
    const samples = sides.map(() => CASES.map((): number[] => []));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < CASES.length; i++) {
        for (const [k, side] of sides.entries()) samples[k]?.[i]?.push(await side.ask({ case: i, runs: RUNS }));
      }
    }
    console.log(`CPU µs per evaluation, median of ${ROUNDS} alternating rounds of ${RUNS} runs; baseline ${baselineRoot}`);
    console.log(`${'case'.padEnd(40)} ${'baseline'.padStart(9)} ${'this'.padStart(9)}  ratio`);
    const cases = CASES.map((c, i) => {
      const before = median(samples[0]?.[i] ?? []);
      const after = median(samples[1]?.[i] ?? []);
      console.log(`${c.name.padEnd(40)} ${String(before).padStart(9)} ${String(after).padStart(9)}  ×${(before / after).toFixed(2)}`);
      return { name: c.name, baseline_us: before, us: after, ratio: Number((before / after).toFixed(2)) };
    });
    if (process.argv.includes('--write')) {
      const file = join(here, 'bench/results.json');
      const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const evaluate = { date: new Date().toISOString(), node: process.version, baseline: baselineRoot, runs: RUNS, rounds: ROUNDS, cases };
      writeFileSync(file, `${JSON.stringify({ ...results, evaluate }, null, 2)}\n`);
      console.log('written to bench/results.json (evaluate)');
    }
  } finally {
    for (const side of sides) side.stop();
  }
}

/** A sampled heap profile's bytes, every node's own allocations added up. */
interface SampledNode {
  selfSize: number;
  children: SampledNode[];
}
const sampledBytes = (node: SampledNode): number => node.selfSize + node.children.reduce((sum, child) => sum + sampledBytes(child), 0);

/**
 * `--counts`: promises made (async_hooks) and bytes allocated (the inspector's heap sampling, collected
 * objects included) per evaluation of each case. Counts, not timings: they hold on a machine too busy to
 * time anything, so a change that makes fewer of either shows at once.
 */
async function counts(): Promise<void> {
  const s = subject();
  const runs = 1_000;
  console.log(`per evaluation of the default policy, over ${runs} runs of each case (the harness's own await included)`);
  console.log(`${'case'.padEnd(40)} ${'promises'.padStart(9)} ${'KB allocated'.padStart(13)}`);
  for (let i = 0; i < CASES.length; i++) {
    await timeCase(s, i, WARM_UP);
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'PROMISE') promises += 1;
      },
    }).enable();
    await timeCase(s, i, runs);
    hook.disable();
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await timeCase(s, i, runs);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SampledNode } };
    session.disconnect();
    const kb = sampledBytes(profile.head) / runs / 1024;
    console.log(`${(CASES[i]?.name ?? '').padEnd(40)} ${(promises / runs).toFixed(1).padStart(9)} ${kb.toFixed(1).padStart(13)}`);
  }
}

/** The pauses --after-wait puts before each evaluation: none, a turn of the event loop, and sleeps of 0.2, 1 and 10 ms. */
const PAUSES: ReadonlyArray<{ name: string; pause: () => Promise<void> }> = [
  { name: 'back to back', pause: async () => {} },
  { name: 'after setImmediate', pause: () => new Promise((resolve) => setImmediate(resolve)) },
  ...[0.2, 1, 10].map((ms) => ({
    name: `after ${ms} ms asleep`,
    // A timer shorter than a millisecond is not there; a thread asleep on a futex for that long is the same pause.
    pause: () =>
      new Promise<void>((resolve) => (ms < 1 ? resolve(void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)) : setTimeout(resolve, ms))),
  })),
];

export interface PauseCost {
  /** What came before each evaluation (PAUSES). */
  pause: string;
  /** Wall µs of one evaluation after it: the median of the rounds' medians. */
  us: number;
}

/**
 * `--after-wait`: wall µs of one evaluation (decision + show_results facts, IPv4) after each of PAUSES, as
 * the service's event loop sleeps between bursts while it waits for the store thread's commit. Where a
 * pause makes the evaluation slower, what it needs (its code, the policy, the lists) left the core's caches
 * while the thread slept (a host that puts an idle core in a deep sleep state, or runs other tenants on it):
 * a request served after a pause costs that much more. Verify, whose event loop waits on the store thread,
 * pays it under load; /v1/public/ip, whose event loop never waits, does not. `npm run bench` records it.
 */
export async function measurePauseCost(runs: number, rounds: number, onRound?: (us: number[]) => void): Promise<PauseCost[]> {
  const s = subject();
  const c = CASES.findIndex((x) => x.withIp && x.respond);
  await timeCase(s, c, WARM_UP);
  const medians: number[][] = PAUSES.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, { pause }] of PAUSES.entries()) {
      const times: number[] = [];
      for (let n = 0; n < runs; n++) {
        await pause();
        const started = performance.now();
        await once(s.policy, true, s.shown);
        times.push((performance.now() - started) * 1000);
      }
      medians[i]?.push(median(times));
    }
    onRound?.(medians.map((m) => m[round] as number));
  }
  return PAUSES.map((p, i) => ({ pause: p.name, us: median(medians[i] ?? []) }));
}

async function afterWait(): Promise<void> {
  const runs = Math.min(RUNS, 500);
  if (process.argv.includes('--json')) return void process.stdout.write(`${JSON.stringify(await measurePauseCost(runs, ROUNDS))}\n`);
  console.log(`wall µs of one evaluation (decision + show_results facts, IPv4) after a pause, median of ${runs} runs a round`);
  console.log(PAUSES.map((p) => p.name.padStart(20)).join(''));
  await measurePauseCost(runs, ROUNDS, (us) => console.log(us.map((x) => String(x).padStart(20)).join('')));
}

async function main(): Promise<void> {
  if (process.argv.includes('--counts')) return counts();
  if (process.argv.includes('--after-wait')) return afterWait();
  if (process.argv.includes('--worker')) {
    const s = subject();
    process.on('message', (message: { case: number; runs: number }) => {
      void timeCase(s, message.case, message.runs).then((us) => process.send?.(us));
    });
    return;
  }
  const baselineAt = process.argv.indexOf('--baseline');
  if (baselineAt >= 0) return compare(process.argv[baselineAt + 1] ?? '');
  const figures = await measureEvaluate();
  if (process.argv.includes('--json')) return void process.stdout.write(`${JSON.stringify(figures)}\n`);
  console.log(`default policy: ${figures.rules} rules; CPU µs per evaluation, median of ${figures.rounds} rounds of ${figures.runs} runs`);
  for (const c of figures.cases) console.log(`${c.name.padEnd(40)} ${String(c.us_per_run).padStart(7)} µs`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
