// What a message to another thread costs the thread that sends it, when the receiver is asleep and when it is
// busy: the event loop's price for handing a group of event rows to the store thread (src/store/event-writer.ts).
// A message to a busy thread is its copy and a queue; one to a thread asleep also wakes it, and on some hosts
// that wake-up is most of the cost (a virtual machine whose idle cores halt: the sender's wake-up of a halted
// core leaves the guest). Verify pays it about once per group of rows sent (ROWS_SENT_AT_ONCE); ip never does.
// The sender keeps its own core busy between messages (spinning), as a loaded event loop does.
//
//   npx tsc -p tsconfig.json && node dist/bench/wake-cost.js [--json]
//
// `npm run bench` runs it in a process of its own and records it under `wake_cost`.
import { Worker } from 'node:worker_threads';

/** The receiver: spins for `busyMs` when told to, answers when asked to. */
const RECEIVER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.busyMs) { const until = performance.now() + m.busyMs; while (performance.now() < until); }
  if (m.reply) parentPort.postMessage(0);
});`;

/** Messages timed in each case. */
const MESSAGES = Number(process.env.BENCH_WAKE_MESSAGES ?? 400);
/** How long the sender spins before a message to a sleeping receiver: long enough for the receiver to be asleep. */
const ASLEEP_GAP_MS = 2;
/** Between messages to a busy receiver, and how many fit in one of its busy spells. */
const BUSY_GAP_MS = 0.5;
const PER_BUSY_SPELL = 40;

export interface WakeCost {
  /** Median wall µs of one postMessage, the receiver asleep. */
  asleep_us: number;
  /** The same, the receiver busy (no wake-up). */
  busy_us: number;
  /** Their 90th percentiles. */
  asleep_p90_us: number;
  busy_p90_us: number;
}

/** An event writer's group: 8 rows of the store thread's 14 columns, as they travel (flat values). */
function group(n: number): { op: 'insert'; values: unknown[] } {
  const values: unknown[] = [];
  for (let i = 0; i < 8; i++) {
    const email = `user.${n * 8 + i}+tag@example.com`;
    values.push('demo-project', 'verify', email, email, `user.${n * 8 + i}@example.com`, 'example.com', '198.51.100.7', null, null, 'allow', 12, 'r1');
    values.push('{"distinct_emails_in_ip":3,"mx_record_status":"not_checked","domain_age_signal":"unknown"}', Date.now());
  }
  return { op: 'insert', values };
}

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Wall µs of posting `message` to `worker`. */
function timedPost(worker: Worker, message: unknown): number {
  const started = performance.now();
  worker.postMessage(message);
  return (performance.now() - started) * 1000;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(1));
}

export async function measureWakeCost(messages = MESSAGES): Promise<WakeCost> {
  const worker = new Worker(RECEIVER, { eval: true });
  try {
    // Started, and its message handling warm.
    await new Promise<void>((resolve) => {
      worker.once('message', () => resolve());
      worker.postMessage({ reply: true });
    });
    for (let i = 0; i < 200; i++) worker.postMessage(group(i));
    await turn();
    const asleep: number[] = [];
    const busy: number[] = [];
    for (let i = 0; asleep.length < messages; i++) {
      spin(ASLEEP_GAP_MS);
      asleep.push(timedPost(worker, group(i)));
      if (i % 20 === 19) await turn();
    }
    while (busy.length < messages) {
      // A busy spell longer than the messages sent during it; the first message starts it.
      worker.postMessage({ busyMs: PER_BUSY_SPELL * BUSY_GAP_MS + 10 });
      spin(1);
      for (let k = 0; k < PER_BUSY_SPELL && busy.length < messages; k++) {
        busy.push(timedPost(worker, group(k)));
        spin(BUSY_GAP_MS);
      }
      await new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage({ reply: true });
      });
    }
    return {
      asleep_us: percentile(asleep, 0.5),
      busy_us: percentile(busy, 0.5),
      asleep_p90_us: percentile(asleep, 0.9),
      busy_p90_us: percentile(busy, 0.9),
    };
  } finally {
    await worker.terminate();
  }
}

async function main(): Promise<void> {
  const cost = await measureWakeCost();
  if (process.argv.includes('--json')) return void process.stdout.write(`${JSON.stringify(cost)}\n`);
  console.log(
    `a message of 8 event rows to another thread: ${cost.asleep_us} µs on the sender when the receiver is asleep (p90 ${cost.asleep_p90_us}), ${cost.busy_us} µs when it is busy (p90 ${cost.busy_p90_us})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
