// What a Redis that stops answering costs (issue 46, point 2; BENCH_ONLY=redis-outage, and a part of `npm run
// bench`): verify's and intelligence's p50 with REDIS_URL set, Redis answering and Redis frozen (SIGSTOP: it
// holds its connections and answers nothing, as behind a partition), at a fixed rate (bench/open-loop.ts: each
// latency from the request's due time). Rate limits and a monthly quota are on, so that every call asks Redis
// while it answers; Redis is a redis-server of this bench's own on an ephemeral port. The target: with Redis
// frozen, p50 within 1 ms of its value with Redis answering. BENCH_BASELINE=<a built checkout> measures that
// checkout's service instead (the figure before a change).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { type RedisServer, startRedisServer } from '../test/support/redis-server.js';
import { openLoop } from './open-loop.js';

const RATE = Number(process.env.BENCH_REDIS_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_REDIS_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_REDIS_ROUNDS ?? 3);
/** Enough for a frozen Redis's waits at RATE before the breaker (each call in flight for 250-500 ms). */
const CONNECTIONS = 128;
/** REDIS_TIMEOUT_MS's default: what each call waited for a frozen Redis before the breaker. */
const REDIS_TIMEOUT_MS = 250;
/** How long to wait for the service to use Redis again after SIGCONT (its breaker's probe runs every second). */
const RECOVERY_TIMEOUT_MS = 15_000;

interface Service {
  base: string;
}

/** What run.ts lends this module: its way of starting (from a checkout) and stopping the service. */
export interface RedisOutageHarness<S extends Service> {
  startService(databaseFile: string, env: Record<string, string>, nodeOptions: readonly string[], root: string): Promise<S>;
  stop(service: S): Promise<void>;
}

interface Pair {
  redis_answering: number;
  redis_frozen: number;
}

export interface RedisOutageFigures {
  baseline?: string;
  rate: number;
  seconds: number;
  rounds: number;
  /** Medians over the rounds, and frozen less answering. */
  p50_ms: { verify: Pair & { difference: number }; intelligence: Pair & { difference: number } };
  p99_ms: { verify: Pair; intelligence: Pair };
  each_round: Array<{ verify: Pair; intelligence: Pair }>;
  non_2xx: number;
  errors: number;
  /** Scripts and transactions Redis ran, over every frozen run (what was written to it while frozen runs when it wakes). */
  redis_commands_while_frozen: number;
  target: { p50_difference_ms_at_most: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** Scripts and transactions Redis ran: a request's limit and quota (commandstats counts what they run inside apart). */
async function requestCommands(redis: RedisServer): Promise<number> {
  const stats = await redis.stats();
  return (stats.evalsha ?? 0) + (stats.eval ?? 0) + (stats.multi ?? 0);
}

/** A non-sandbox project with a quota it never reaches, made through the CLI beside the running service. */
function benchProject(databaseFile: string, root: string): { accessToken: string; privateKey: string } {
  const env = { ...process.env, DATABASE_URL: `sqlite:${databaseFile}` };
  const cli = join(root, 'bin/email-trust.js');
  const out = execFileSync(process.execPath, [cli, 'project', 'create', '--name', 'redis-outage', '--json'], { env, encoding: 'utf8' });
  const { keys } = JSON.parse(out) as { keys: { access_token: string; private_key: string } };
  execFileSync(process.execPath, [cli, 'project', 'set-quota', 'redis-outage', '1000000000'], { env, stdio: 'ignore' });
  return { accessToken: keys.access_token, privateKey: keys.private_key };
}

export async function redisOutageBench<S extends Service>(h: RedisOutageHarness<S>, dir: string): Promise<RedisOutageFigures> {
  const baseline = process.env.BENCH_BASELINE;
  const root = baseline ?? packageRoot;
  const redis = await startRedisServer();
  const databaseFile = join(dir, 'redis-outage.sqlite');
  const env = { REDIS_URL: redis.url, REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS), RATE_LIMIT_VERIFY: '100000', RATE_LIMIT_INTELLIGENCE: '100000' };
  const service = await h.startService(databaseFile, env, [], root);
  let n = 0;
  try {
    const keys = benchProject(databaseFile, root);
    const endpoints = {
      verify: {
        url: `${service.base}/v1/public/verify`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.accessToken}` },
        body: () => JSON.stringify({ email_address: `user.${++n}@example.com`, ipv4_address: `198.51.100.${n % 250}` }),
      },
      intelligence: {
        url: `${service.base}/v1/intelligence`,
        headers: { 'content-type': 'application/json', 'x-api-key': keys.privateKey },
        body: () => JSON.stringify({ email_address: `user.${++n}@example.com` }),
      },
    };
    const run = (name: keyof typeof endpoints, seconds = SECONDS) =>
      openLoop({ ...endpoints[name], rate: RATE, seconds, connections: CONNECTIONS, openWith: '/v1/public/ip', warmUpSeconds: 1 });
    await run('verify', 2);
    await run('intelligence', 2);

    const rounds: Array<{ verify: Pair; intelligence: Pair }> = [];
    const p99s: Array<{ verify: Pair; intelligence: Pair }> = [];
    let non2xx = 0;
    let errors = 0;
    let whileFrozen = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const p50 = { verify: { redis_answering: 0, redis_frozen: 0 }, intelligence: { redis_answering: 0, redis_frozen: 0 } };
      const p99 = structuredClone(p50);
      const answering = async () => {
        for (const name of ['verify', 'intelligence'] as const) {
          const figures = await run(name);
          p50[name].redis_answering = figures.p50_ms;
          p99[name].redis_answering = figures.p99_ms;
          non2xx += figures.non_2xx;
          errors += figures.errors;
        }
      };
      const frozen = async () => {
        await redis.resetStats();
        redis.freeze();
        try {
          for (const name of ['verify', 'intelligence'] as const) {
            // Its warm-up second takes the first failure (one REDIS_TIMEOUT_MS); the measured seconds follow.
            const figures = await run(name);
            p50[name].redis_frozen = figures.p50_ms;
            p99[name].redis_frozen = figures.p99_ms;
            non2xx += figures.non_2xx;
            errors += figures.errors;
          }
        } finally {
          redis.thaw();
        }
        // What was written to it while frozen runs as it wakes, before this later question.
        whileFrozen += await requestCommands(redis);
        await usingRedisAgain(redis, endpoints.verify);
      };
      // Which goes first alternates: a machine that gets busier over the run favours neither.
      if (round % 2 === 0) {
        await answering();
        await frozen();
      } else {
        await frozen();
        await answering();
      }
      console.log(
        `round ${round + 1} of ${ROUNDS}: p50 verify ${p50.verify.redis_answering} ms with Redis answering, ${p50.verify.redis_frozen} ms frozen; intelligence ${p50.intelligence.redis_answering} and ${p50.intelligence.redis_frozen} ms`,
      );
      rounds.push(p50);
      p99s.push(p99);
    }
    const medianPair = (pairs: Pair[]): Pair => ({
      redis_answering: median(pairs.map((p) => p.redis_answering)),
      redis_frozen: median(pairs.map((p) => p.redis_frozen)),
    });
    const withDifference = (pair: Pair) => ({ ...pair, difference: round2(pair.redis_frozen - pair.redis_answering) });
    const figures: RedisOutageFigures = {
      ...(baseline ? { baseline } : {}),
      rate: RATE,
      seconds: SECONDS,
      rounds: ROUNDS,
      p50_ms: {
        verify: withDifference(medianPair(rounds.map((r) => r.verify))),
        intelligence: withDifference(medianPair(rounds.map((r) => r.intelligence))),
      },
      p99_ms: { verify: medianPair(p99s.map((r) => r.verify)), intelligence: medianPair(p99s.map((r) => r.intelligence)) },
      each_round: rounds,
      non_2xx: non2xx,
      errors,
      redis_commands_while_frozen: whileFrozen,
      target: { p50_difference_ms_at_most: 1 },
    };
    const { verify, intelligence } = figures.p50_ms;
    console.log(
      `Redis frozen against answering, p50 at ${RATE}/s (median of ${ROUNDS} rounds): verify ${verify.redis_frozen} against ${verify.redis_answering} ms (${verify.difference} ms), intelligence ${intelligence.redis_frozen} against ${intelligence.redis_answering} ms (${intelligence.difference} ms); target ≤ 1 ms; ${whileFrozen} Redis commands while frozen`,
    );
    return figures;
  } finally {
    redis.thaw();
    await h.stop(service);
    await redis.stop();
  }
}

/** Sends a verify now and then until Redis runs a command for it: the service's breaker has closed. */
async function usingRedisAgain(redis: RedisServer, verify: { url: string; headers: Record<string, string>; body(): string }): Promise<void> {
  const deadline = performance.now() + RECOVERY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const before = await requestCommands(redis);
    await fetch(verify.url, { method: 'POST', headers: verify.headers, body: verify.body() }).then((res) => res.arrayBuffer());
    if ((await requestCommands(redis)) > before) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service did not use Redis again within ${RECOVERY_TIMEOUT_MS} ms of SIGCONT`);
}
