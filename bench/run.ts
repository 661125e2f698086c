// `npm run bench`: starts the service in a child process on a temporary SQLite database, loads it with
// autocannon from this process (one core each), and writes bench/results.json. Throughput is reported
// as a ratio to the cheapest endpoint (POST /v1/public/ip) measured in the same run.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { packageRoot } from '../src/paths.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { ipLookupFigures } from './ip-lookup.js';
import { metricsBench } from './metrics.js';
import { velocityBench } from './velocity.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DISTINCT_IPS = 1000;

interface Started {
  child: ChildProcess;
  base: string;
  accessToken: string;
  /** From spawning the process to its "listening" log line, on an empty database. */
  startMs: number;
}

/** Resident memory of a process, in MB (Linux /proc). */
function residentMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

interface Figures {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
}

async function startService(databaseFile: string, env: Record<string, string> = {}): Promise<Started> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [join(packageRoot, 'bin/email-trust.js'), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${databaseFile}`,
      LOG_LEVEL: 'info',
      RATE_LIMIT_VERIFY: '0',
      RATE_LIMIT_IP: '0',
      NETWORK_CHECKS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let accessToken = '';
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const match = /^\s+access_token\s+(\S+)/.exec(line);
    if (match) accessToken = match[1]!;
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the service exited with code ${code} before listening`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (!line.startsWith('{')) return process.stderr.write(`${line}\n`);
      const entry = JSON.parse(line) as { msg?: string; base?: string; level?: number };
      if (entry.msg === 'email-trust is listening' && entry.base) {
        clearTimeout(timer);
        resolve(entry.base);
      } else if ((entry.level ?? 0) >= 50) process.stderr.write(`${line}\n`);
    });
  });
  for (let i = 0; i < 50 && !accessToken; i++) await new Promise((r) => setTimeout(r, 20));
  const startMs = Math.round(performance.now() - spawnedAt);
  if (!accessToken) throw new Error('the service did not print the demo project access token');
  return { child, base, accessToken, startMs };
}

function figures(result: autocannon.Result): Figures {
  return {
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

async function load(title: string, options: autocannon.Options): Promise<Figures> {
  process.stdout.write(`${title}: ${SECONDS} s, ${CONNECTIONS} connections … `);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const f = figures(result);
  console.log(`${f.requests_per_second} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms${f.non_2xx ? `, ${f.non_2xx} non-2xx` : ''}`);
  return f;
}

/** POST /v1/public/verify with a distinct address per request on `domainOf(n)`, from one of 1,000 IPs. */
function verifyLoad(service: Started, domainOf: (n: number) => string): autocannon.Options {
  let n = 0;
  return {
    url: `${service.base}/v1/public/verify`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${service.accessToken}` },
    requests: [
      {
        setupRequest: (request: autocannon.Request) => {
          n += 1;
          const host = n % DISTINCT_IPS;
          request.body = JSON.stringify({
            email_address: `user.${n}+tag@${domainOf(n)}`,
            ipv4_address: `198.51.${Math.floor(host / 256)}.${host % 256}`,
            show_results: true,
          });
          return request;
        },
      },
    ],
  };
}

async function stop(service: Started): Promise<void> {
  service.child.kill('SIGTERM');
  await new Promise((r) => service.child.once('exit', r));
}

/** Verify with the network checks on, against a DNS server and an RDAP server of our own on 127.0.0.1. */
async function networkRuns(dir: string, offline: Figures): Promise<Record<string, unknown>> {
  const dns = await startDnsServer();
  const rdap = createServer((_req, res) => void res.writeHead(404).end());
  await new Promise<void>((done) => rdap.listen(0, '127.0.0.1', done));
  const service = await startService(join(dir, 'network.sqlite'), {
    NETWORK_CHECKS: 'on',
    DNS_SERVERS: `127.0.0.1:${dns.port}`,
    RDAP_BASE_URL: `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`,
    WEB_CHECKS: 'off',
  });
  try {
    // Cold: every address on a domain never seen, so each request asks the DNS server (MX, A, AAAA).
    const cold = await load(
      'POST /v1/public/verify, network on, cold DNS cache',
      verifyLoad(service, (n) => `d${n}.bench.test`),
    );
    const questions = dns.count();
    // Warm: one domain with MX, answered from the cache after the first request.
    await autocannon({ ...verifyLoad(service, () => 'mx.test'), connections: CONNECTIONS, duration: 1 });
    const warm = await load(
      'POST /v1/public/verify, network on, warm DNS cache',
      verifyLoad(service, () => 'mx.test'),
    );
    const ratio = (f: Figures) => Number((f.requests_per_second / offline.requests_per_second).toFixed(3));
    console.log(`network on / offline throughput: cold ${ratio(cold)}, warm ${ratio(warm)}; DNS questions during the cold run: ${questions}`);
    return { cold, warm, ratio_cold_to_offline: ratio(cold), ratio_warm_to_offline: ratio(warm), dns_questions_cold: questions };
  } finally {
    await stop(service);
    await new Promise((done) => rdap.close(done));
    await dns.close();
  }
}

/** BENCH_ONLY=velocity (or metrics) runs only that part and merges its figures into bench/results.json. */
async function onlyPart(part: 'velocity' | 'metrics'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'email-trust-bench-'));
  try {
    const harness = { startService, stop, figures, seconds: SECONDS, connections: CONNECTIONS };
    const figuresOfPart = part === 'velocity' ? await velocityBench(harness, dir) : await metricsBench(harness, dir);
    const file = join(packageRoot, 'bench/results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify({ ...results, [part]: { date: new Date().toISOString(), ...figuresOfPart } }, null, 2)}\n`);
    console.log(`${part} figures written to bench/results.json`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY === 'velocity' || process.env.BENCH_ONLY === 'metrics') return onlyPart(process.env.BENCH_ONLY);
  const dir = mkdtempSync(join(tmpdir(), 'email-trust-bench-'));
  const service = await startService(join(dir, 'bench.sqlite'));
  try {
    const ip = { url: `${service.base}/v1/public/ip`, method: 'POST' as const, headers: { 'content-type': 'application/json' } };
    const verify = verifyLoad(service, () => 'example.com');
    const rssAtStart = residentMb(service.child.pid!);
    await autocannon({ ...ip, connections: CONNECTIONS, duration: 2 });
    await autocannon({ ...verify, connections: CONNECTIONS, duration: 2 });

    const ipFigures = await load('POST /v1/public/ip (baseline)', ip);
    const verifyFigures = await load('POST /v1/public/verify (default policy, network off, IPv4, event stored)', verify);
    const rssAfterLoad = residentMb(service.child.pid!);
    console.log(`start-up: ${service.startMs} ms to listening; resident memory ${rssAtStart} MB at start, ${rssAfterLoad} MB after load`);
    await stop(service);
    const ratio = Number((verifyFigures.requests_per_second / ipFigures.requests_per_second).toFixed(3));
    console.log(`verify/ip throughput ratio: ${ratio} (target ≥ 0.3, goal 0.5)`);
    const network = await networkRuns(dir, verifyFigures);
    const ipLookup = ipLookupFigures();
    console.log(`ip lookup: IPv4 ${ipLookup.ipv4_lookups_per_second}/s, IPv6 ${ipLookup.ipv6_lookups_per_second}/s; tables +${ipLookup.rss_mb_tables} MB RSS`);
    const velocity = {
      date: new Date().toISOString(),
      ...(await velocityBench({ startService, stop, figures, seconds: SECONDS, connections: CONNECTIONS }, dir)),
    };
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      seconds: SECONDS,
      connections: CONNECTIONS,
      database: 'sqlite (temporary file)',
      startup: { ms_to_listening: service.startMs, rss_mb_at_start: rssAtStart, rss_mb_after_load: rssAfterLoad },
      endpoints: { ip: ipFigures, verify: verifyFigures },
      ratio_verify_to_ip: ratio,
      target: { verify_to_ip_at_least: 0.3, goal: 0.5 },
      network,
      ip_lookup: ipLookup,
      velocity,
    };
    writeFileSync(join(packageRoot, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
    console.log('written to bench/results.json');
  } finally {
    if (service.child.exitCode === null) await stop(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).message}`);
  process.exitCode = 1;
});
