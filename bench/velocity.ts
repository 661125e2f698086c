// The velocity part of `npm run bench` (issue 9): verify latency with an IP that has 1,000 stored events
// and with one that has 1,000,000, /v1/public/ip latency alone and while the heavy IP is verified under
// load, and verify throughput without an IP against with one, on SQLite and on PostgreSQL. The history is
// written by `email-trust events generate`, the store's own write path.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { packageRoot } from '../src/paths.js';

const LIGHT_IP = '203.0.113.1';
const HEAVY_IP = '203.0.113.2';
const LIGHT_EVENTS = Number(process.env.BENCH_LIGHT_EVENTS ?? 1_000);
const HEAVY_EVENTS = Number(process.env.BENCH_HEAVY_EVENTS ?? 1_000_000);
/** Connections of the ip probe that runs beside the verify load: few, so it measures latency, not capacity. */
const PROBE_CONNECTIONS = 4;

export interface Figures {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
}

interface Service {
  base: string;
  accessToken: string;
}

/** What run.ts lends this module: its way of starting, loading and stopping the service. */
export interface Harness<S extends Service> {
  startService(databaseFile: string, env?: Record<string, string>): Promise<S>;
  stop(service: S): Promise<void>;
  figures(result: autocannon.Result): Figures;
  seconds: number;
  connections: number;
}

/** `email-trust events generate …` in a child process; resolves with its wall-clock seconds. */
function generate(databaseUrl: string, count: number, ipv4: string): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(packageRoot, 'bin/email-trust.js'), 'events', 'generate', '--count', String(count), '--ipv4', ipv4, '--spread', '60', '--project', 'demo'],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`events generate exited with ${code}`)))),
  );
}

function verifyOptions(service: Service, ipv4: string | null, connections: number, seconds: number): autocannon.Options {
  let n = 0;
  return {
    url: `${service.base}/v1/public/verify`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${service.accessToken}` },
    requests: [
      {
        setupRequest: (request: autocannon.Request) => {
          n += 1;
          request.body = JSON.stringify({ email_address: `bench.${n}@example.com`, ...(ipv4 ? { ipv4_address: ipv4 } : {}), show_results: true });
          return request;
        },
      },
    ],
  };
}

const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(2)) : null);

/** One database: fill it, start the service on it, measure. */
async function measure<S extends Service>(h: Harness<S>, label: string, databaseUrl: string, serviceDatabaseFile: string, env: Record<string, string>) {
  const service = await h.startService(serviceDatabaseFile, env); // migrates and creates the demo project
  try {
    console.log(`[${label}] generating ${LIGHT_EVENTS} events on ${LIGHT_IP} and ${HEAVY_EVENTS} on ${HEAVY_IP} …`);
    const lightSeconds = await generate(databaseUrl, LIGHT_EVENTS, LIGHT_IP);
    const heavySeconds = await generate(databaseUrl, HEAVY_EVENTS, HEAVY_IP);
    const run = async (title: string, options: autocannon.Options): Promise<Figures> => {
      process.stdout.write(`[${label}] ${title}: ${options.duration} s, ${options.connections} connections … `);
      const f = h.figures(await autocannon(options));
      console.log(`${f.requests_per_second} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms${f.non_2xx ? `, ${f.non_2xx} non-2xx` : ''}`);
      return f;
    };
    const ip = (connections: number): autocannon.Options => ({
      url: `${service.base}/v1/public/ip`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      connections,
      duration: h.seconds,
    });
    // Warm-up on both IPs, so neither run pays for a cold page cache.
    await autocannon({ ...verifyOptions(service, LIGHT_IP, h.connections, 1) });
    await autocannon({ ...verifyOptions(service, HEAVY_IP, h.connections, 1) });
    const light = await run(`verify, IP with ${LIGHT_EVENTS} events`, verifyOptions(service, LIGHT_IP, h.connections, h.seconds));
    const heavy = await run(`verify, IP with ${HEAVY_EVENTS} events`, verifyOptions(service, HEAVY_IP, h.connections, h.seconds));
    const noIp = await run('verify, no IP', verifyOptions(service, null, h.connections, h.seconds));
    const ipAlone = await run('ip alone', ip(PROBE_CONNECTIONS));
    // The control: the same probe beside a verify load on the light IP. Verify is CPU work on the same
    // event loop either way; what must not change is the probe's latency between light and heavy.
    const [ipBesideLight] = await Promise.all([
      run('ip while the light IP is verified under load', ip(PROBE_CONNECTIONS)),
      run('verify of the light IP beside it', verifyOptions(service, LIGHT_IP, h.connections, h.seconds)),
    ]);
    const [ipBeside, heavyBeside] = await Promise.all([
      run('ip while the heavy IP is verified under load', ip(PROBE_CONNECTIONS)),
      run('verify of the heavy IP beside it', verifyOptions(service, HEAVY_IP, h.connections, h.seconds)),
    ]);
    const result = {
      generate_seconds: { light: Number(lightSeconds.toFixed(1)), heavy: Number(heavySeconds.toFixed(1)) },
      generate_events_per_second: Math.round(HEAVY_EVENTS / heavySeconds),
      verify_light_ip: light,
      verify_heavy_ip: heavy,
      verify_no_ip: noIp,
      ratio_heavy_to_light: { p50: ratio(heavy.p50_ms, light.p50_ms), p99: ratio(heavy.p99_ms, light.p99_ms) },
      ratio_rps_with_ip_to_without: ratio(light.requests_per_second, noIp.requests_per_second),
      ip_alone: ipAlone,
      ip_beside_light_verify: ipBesideLight,
      ip_beside_heavy_verify: ipBeside,
      heavy_verify_beside_ip: heavyBeside,
      ip_p99_change_ms: Number((ipBeside.p99_ms - ipAlone.p99_ms).toFixed(2)),
      ip_p99_heavy_to_light: ratio(ipBeside.p99_ms, ipBesideLight.p99_ms),
    };
    console.log(
      `[${label}] 1M/1k verify latency ratio: p50 ${result.ratio_heavy_to_light.p50}, p99 ${result.ratio_heavy_to_light.p99} (target ≤ 1.3); ` +
        `ip p99 ${ipAlone.p99_ms} ms alone, ${ipBesideLight.p99_ms} ms beside the light load, ${ipBeside.p99_ms} ms beside the heavy one; ` +
        `verify req/s with IP / without: ${result.ratio_rps_with_ip_to_without}`,
    );
    return result;
  } finally {
    await h.stop(service);
  }
}

/** A database of its own on the PostgreSQL server of `url`, dropped afterwards. */
async function withPostgresDatabase<T>(url: string, work: (databaseUrl: string) => Promise<T>): Promise<T> {
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  const name = `bench_velocity_${randomBytes(4).toString('hex')}`;
  await admin.raw('create database ??', [name]);
  try {
    const target = new URL(url);
    target.pathname = `/${name}`;
    return await work(target.toString());
  } finally {
    await admin.raw('drop database if exists ?? with (force)', [name]);
    await admin.destroy();
  }
}

/** Both databases; PostgreSQL at BENCH_POSTGRES_URL (default the local test server), skipped when set to `off`. */
export async function velocityBench<S extends Service>(h: Harness<S>, dir: string): Promise<Record<string, unknown>> {
  const sqliteFile = join(dir, 'velocity.sqlite');
  const sqlite = await measure(h, 'sqlite', `sqlite:${sqliteFile}`, sqliteFile, {});
  const pgUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const postgres =
    pgUrl === 'off' ? null : await withPostgresDatabase(pgUrl, (databaseUrl) => measure(h, 'postgres', databaseUrl, sqliteFile, { DATABASE_URL: databaseUrl }));
  return {
    light_events: LIGHT_EVENTS,
    heavy_events: HEAVY_EVENTS,
    seconds: h.seconds,
    connections: h.connections,
    target: { ratio_heavy_to_light_at_most: 1.3 },
    sqlite,
    postgres,
  };
}
