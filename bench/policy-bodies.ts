// BENCH_ONLY=policy-bodies (issue 46): another tenant's verify, open loop at BENCH_BYSTANDER_RATE (default 50
// a second), alone and while one sandbox key (the demo project's) posts policy texts to the playground at 10 a
// second: the issue's text 100,000 levels deep; in turn the costliest texts within the limits; a 135-byte text
// of map keys in map keys, whose path doubled in length at each level before. Reported per phase: the bystander's p50, p99 and max, what the
// attacker's texts were answered, and the CPU the service's event loop and its other threads spent. With
// BENCH_BASELINE=DIR the service is that built checkout's (the texts are the same).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { POLICY_LIMITS } from '../src/policy/limits.js';
import { ConnectionPool, requestBytes, requestHead } from './http-connections.js';
import { openLoop } from './open-loop.js';
import { threadTimes } from './thread-cpu.js';

const BYSTANDER_RATE = Number(process.env.BENCH_BYSTANDER_RATE ?? 50);
const ATTACK_RATE = 10;
/** How long the texts still unanswered at a phase's end are waited for, before the next phase. */
const DRAIN_MS = 120_000;

interface Service {
  base: string;
  accessToken: string;
  child: { pid?: number; exitCode: number | null; signalCode: string | null };
}

/** What run.ts lends this module. */
export interface Harness<S extends Service> {
  startService(databaseFile: string, env?: Record<string, string>, nodeOptions?: readonly string[], root?: string): Promise<S>;
  stop(service: S): Promise<void>;
  seconds: number;
}

const HEAD = 'version: "1.0"\n';
const unknownFactRule = (i: number) =>
  `  - { name: r${i}, action: warn, conditions: { all: [{ fact: zz_unknown_${i}_a, operator: equal, value: true }, { fact: zz_unknown_${i}_b, operator: equal, value: true }] } }\n`;

/** The issue's text, the texts within the limits that cost the most to check (measured when the limits were set), and the key bomb. */
const ATTACK_TEXTS = {
  deep: [`${HEAD}description: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
  within_limits: [
    HEAD + '- 1\n'.repeat(Math.floor((POLICY_LIMITS.nodes - 10) / 2)),
    HEAD + '- &a x\n'.repeat(Math.floor((POLICY_LIMITS.nodes - 10) / 3)),
    `${HEAD}rules:\n${Array.from({ length: 150 }, (_, i) => unknownFactRule(i)).join('')}`,
    HEAD + Array.from({ length: Math.floor((POLICY_LIMITS.nodes - 10) / 2) }, (_, i) => `k${i}: 1\n`).join(''),
  ],
  key_bomb: [HEAD + '{!t \n'.repeat(27)],
};

interface AttackFigures {
  bytes: number[];
  sent: number;
  /** Answers by status; `unanswered` within the drain. */
  statuses: Record<string, number>;
  p50_ms: number;
  max_ms: number;
}

/** POSTs `texts` in turn to the playground at ATTACK_RATE for `seconds`; resolves once every one is answered (or the drain ends). */
async function attack(service: Service, texts: readonly string[], seconds: number): Promise<AttackFigures> {
  const target = new URL(`${service.base}/v1/playground/evaluate`);
  // Enough connections that a slow answer never holds the next text back: each is sent when due.
  const pool = new ConnectionPool(target.hostname, Number(target.port), 256);
  const head = requestHead('POST', target.pathname, target.host, { 'content-type': 'application/json', authorization: `Bearer ${service.accessToken}` });
  const bodies = texts.map((policy) => JSON.stringify({ policy }));
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const total = Math.round(ATTACK_RATE * seconds);
  let settled = 0;
  const answered = new Promise<void>((done) => {
    const started = performance.now();
    for (let n = 0; n < total; n++) {
      setTimeout(
        () => {
          const due = performance.now();
          const count = (status: string) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            latencies.push(performance.now() - due);
            if (++settled === total) done();
          };
          pool.request({
            bytes: requestBytes(head, bodies[n % bodies.length] as string),
            onSocket: () => {},
            onAnswer: (status) => count(String(status)),
            onError: () => count('error'),
          });
        },
        started + (n * 1000) / ATTACK_RATE - performance.now(),
      );
    }
  });
  const drained = await Promise.race([answered.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), seconds * 1000 + DRAIN_MS))]);
  if (!drained) statuses.unanswered = total - settled;
  pool.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    bytes: texts.map((t) => Buffer.byteLength(t)),
    sent: total,
    statuses,
    p50_ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    max_ms: Math.round(sorted.at(-1) ?? 0),
  };
}

/** CPU seconds of the service's event loop and of its other threads between two readings. */
function cpuSeconds(pid: number, before: ReturnType<typeof threadTimes>, after: ReturnType<typeof threadTimes>) {
  if (!before || !after) return null;
  let other = 0;
  for (const [tid, us] of after) if (tid !== pid) other += us - (before.get(tid) ?? 0);
  const main = (after.get(pid) ?? 0) - (before.get(pid) ?? 0);
  return { event_loop_s: Number((main / 1e6).toFixed(2)), other_threads_s: Number((other / 1e6).toFixed(2)) };
}

export async function policyBodiesBench<S extends Service>(h: Harness<S>, dir: string) {
  const root = process.env.BENCH_BASELINE ?? packageRoot;
  const databaseFile = join(dir, 'policy-bodies.sqlite');
  const service = await h.startService(databaseFile, {}, [], root);
  try {
    // The bystander: another tenant, not a sandbox one.
    const created = execFileSync(process.execPath, [join(packageRoot, 'bin/email-trust.js'), 'project', 'create', '--name', 'bystander', '--json'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${databaseFile}` },
      encoding: 'utf8',
    });
    const bystanderToken = (JSON.parse(created.trim().split('\n').at(-1) as string) as { keys: { access_token: string } }).keys.access_token;
    let offset = 0;
    const bystander = (seconds: number, warmUpSeconds = 0) =>
      openLoop({
        url: `${service.base}/v1/public/verify`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bystanderToken}` },
        body: (n) => JSON.stringify({ email_address: `bystander.${offset + n}@example.com` }),
        rate: BYSTANDER_RATE,
        seconds,
        connections: 16,
        openWith: '/v1/public/ip',
        warmUpSeconds,
      });
    const pid = service.child.pid as number;
    const phases: Record<string, unknown> = {};
    for (const phase of ['alone', 'deep', 'within_limits', 'key_bomb'] as const) {
      process.stdout.write(
        `${phase === 'alone' ? 'a bystander alone' : `a bystander while ${ATTACK_RATE} ${phase.replace('_', ' ')} texts a second are posted`}: ${h.seconds} s … `,
      );
      const before = threadTimes(pid);
      // The texts are posted through the bystander's warm-up (2 s) and its measured seconds.
      const [seen, attacker] = await Promise.all([bystander(h.seconds, 2), phase === 'alone' ? null : attack(service, ATTACK_TEXTS[phase], h.seconds + 2)]);
      offset += 1_000_000;
      const cpu = cpuSeconds(pid, before, threadTimes(pid));
      // A service the texts brought down (main ran out of memory on one) answers nothing more: the phase says so.
      const down = service.child.exitCode !== null || service.child.signalCode !== null;
      phases[phase] = { bystander: seen, ...(attacker ? { attacker } : {}), ...(cpu ? { service_cpu: cpu } : {}), ...(down ? { service_stopped: true } : {}) };
      console.log(
        `bystander p50 ${seen.p50_ms} ms, p99 ${seen.p99_ms} ms, max ${seen.max_ms} ms${seen.non_2xx ? `, ${seen.non_2xx} non-2xx` : ''}` +
          (attacker ? `; the texts answered ${JSON.stringify(attacker.statuses)}, p50 ${attacker.p50_ms} ms, max ${attacker.max_ms} ms` : '') +
          (cpu ? `; service CPU: event loop ${cpu.event_loop_s} s, other threads ${cpu.other_threads_s} s` : '') +
          (down ? '; the service stopped' : ''),
      );
      if (down) break;
    }
    return { ...(process.env.BENCH_BASELINE ? { baseline: root } : {}), bystander_rate: BYSTANDER_RATE, attack_rate: ATTACK_RATE, seconds: h.seconds, phases };
  } finally {
    if (service.child.exitCode === null && service.child.signalCode === null) await h.stop(service);
  }
}
