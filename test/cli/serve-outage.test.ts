// `serve` as a child process on the machine's real PostgreSQL, through a TCP proxy the test cuts while a burst
// of requests runs (verify, intelligence, unknown keys; network checks on, against a local DNS server): with
// LOG_LEVEL=silent nothing reaches stderr, and nothing reaches stdout after its start; with LOG_LEVEL=warn every
// line is a logger's JSON line, none a stack trace, and a line of one kind comes at most once a second, the
// lines it stood for counted in `suppressed`. Before, knex printed every failed connection attempt with its
// stack on stdout at any LOG_LEVEL, and the service a warning per refused request (docs/decisions/0013-log-throttle.md).
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THROTTLE_INTERVAL_MS } from '../../src/log-throttle.js';
import { packageRoot } from '../../src/paths.js';
import { createPostgresSchema } from '../support/databases.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { ensureBuilt } from '../support/serve-process.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** How long each wait of a run may take (a start, the warm-up, the outage seen, the recovery). */
const WAIT_TIMEOUT_MS = 20_000;
/** A whole run: its four waits, and the stop. */
const RUN_TIMEOUT_MS = 5 * WAIT_TIMEOUT_MS;
/** Requests in flight at once during the burst. */
const CONCURRENCY = 12;

let dns: TestDnsServer;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ensureBuilt();
  dns = await startDnsServer();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await dns?.close();
});

interface OutageRun {
  /** stderr, whole. */
  stderr: string;
  /** What stdout received from the cut on. */
  stdoutAfterCut: string;
  /** Answers by status, during the whole burst. */
  statuses: Record<number, number>;
}

/** A private schema behind a cuttable proxy: a DATABASE_URL through the proxy. */
async function databaseBehindProxy(): Promise<{ url: string; proxy: TcpProxy }> {
  const schema = await createPostgresSchema();
  const direct = new URL(schema.url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(async () => {
    await proxy.close();
    await schema.drop();
  });
  direct.port = String(proxy.port);
  return { url: direct.toString(), proxy };
}

/**
 * Starts serve, runs the burst, cuts the database until `outageSeen(stderr, statuses)` holds, restores it, waits
 * for a 200, then stops the burst and the service (SIGTERM, exit 0).
 */
async function outage(logLevel: string, outageSeen: (stderr: string, statuses: Record<number, number>) => boolean): Promise<OutageRun> {
  const { url, proxy } = await databaseBehindProxy();
  const proc: ChildProcess = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: packageRoot,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
      ACCESS_LOG: 'off',
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: dns.server,
      DNS_CANARIES: 'canary.test',
      RDAP_BASE_URL: 'http://127.0.0.1:9',
      WEB_CHECKS: 'off',
      RATE_LIMIT_VERIFY: '0',
      RATE_LIMIT_INTELLIGENCE: '0',
      RATE_LIMIT_FAILED_AUTH: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  await expect.poll(() => /API documentation: .*\n/.test(stdout) || proc.exitCode !== null, { timeout: WAIT_TIMEOUT_MS, interval: 50 }).toBe(true);
  expect(proc.exitCode, stderr).toBeNull();
  const base = /curl -s -X POST (http:\/\/[^/\s]+)\//.exec(stdout)?.[1] as string;
  const accessToken = /access_token\s+(\S+)/.exec(stdout)?.[1] as string;
  const privateKey = /private_key\s+(\S+)/.exec(stdout)?.[1] as string;

  const statuses: Record<number, number> = {};
  let stop = false;
  // Each lane cycles through a verify, an intelligence call and a verify with a key never seen (its check needs the database).
  const request = (n: number): { path: string; headers: Record<string, string>; body: object } => {
    if (n % 3 === 0)
      return {
        path: '/v1/public/verify',
        headers: { authorization: `Bearer ${accessToken}` },
        body: { email_address: `a${n}@mx.test`, ipv4_address: '192.0.2.1' },
      };
    if (n % 3 === 1) return { path: '/v1/intelligence', headers: { 'x-api-key': privateKey }, body: { email_address: `b${n}@multi.test` } };
    return { path: '/v1/public/verify', headers: { authorization: `Bearer etv_at_${'Q'.repeat(42)}${n % 10}` }, body: { email_address: 'c@mx.test' } };
  };
  const burst = async (lane: number) => {
    for (let n = lane; !stop; n += 1) {
      const { path, headers, body } = request(n);
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  const lanes = Array.from({ length: CONCURRENCY }, (_, lane) => burst(lane));
  await expect.poll(() => statuses[200] ?? 0, { timeout: WAIT_TIMEOUT_MS }).toBeGreaterThan(50);

  const cutAt = stdout.length;
  await proxy.cut();
  await expect.poll(() => outageSeen(stderr, statuses), { timeout: WAIT_TIMEOUT_MS, interval: 50 }).toBe(true);
  await proxy.restore();
  const servedBefore = statuses[200] ?? 0;
  await expect.poll(() => statuses[200] ?? 0, { timeout: WAIT_TIMEOUT_MS }).toBeGreaterThan(servedBefore + 20);
  stop = true;
  await Promise.all(lanes);
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
  return { stderr, stdoutAfterCut: stdout.slice(cutAt), statuses };
}

interface LogLine {
  level: number;
  time: number;
  msg: string;
  reason?: string;
  plugin?: string;
  suppressed?: number;
}

describe('serve, PostgreSQL cut under a burst of requests', () => {
  it(
    'with LOG_LEVEL=silent, writes nothing on stderr and nothing on stdout after its start',
    async () => {
      const run = await outage('silent', (_stderr, statuses) => (statuses[503] ?? 0) >= 1000);
      expect(run.statuses[503]).toBeGreaterThanOrEqual(1000);
      expect(run.stderr).toBe('');
      expect(run.stdoutAfterCut).toBe('');
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'with LOG_LEVEL=warn, writes JSON lines through the logger, none a stack trace, each kind at most once a second',
    async () => {
      // Seen: a request refusal's line that counted others, and knex's own lines among the logger's.
      const run = await outage('warn', (stderr) => /"suppressed":\d+,"msg":"database unavailable"/.test(stderr) && stderr.includes('"msg":"database driver: '));
      expect(run.stdoutAfterCut).toBe('');
      expect(run.stderr).not.toMatch(/^\s+at /m);
      const lines = run.stderr
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as LogLine);
      for (const line of lines) expect(line.level).toBeGreaterThanOrEqual(40);
      expect(JSON.stringify(lines)).not.toContain('    at ');

      const kinds = new Map<string, LogLine[]>();
      for (const line of lines) {
        const kind = [line.msg, line.reason, line.plugin].join('|');
        kinds.set(kind, [...(kinds.get(kind) ?? []), line]);
      }
      expect([...kinds.keys()].some((kind) => kind.startsWith('database driver: '))).toBe(true);
      for (const [kind, ofKind] of kinds) {
        // pino's `time` is whole milliseconds, read just after the throttle's own clock.
        for (let i = 1; i < ofKind.length; i += 1) {
          expect((ofKind[i] as LogLine).time - (ofKind[i - 1] as LogLine).time, kind).toBeGreaterThanOrEqual(THROTTLE_INTERVAL_MS - 10);
        }
      }
      const refusals = lines.filter((line) => line.msg === 'database unavailable');
      const counted = refusals.length + refusals.reduce((sum, line) => sum + (line.suppressed ?? 0), 0);
      // Every refusal was written or counted, except those of each kind's last second (no line came after them).
      expect(counted).toBeLessThanOrEqual(run.statuses[503] ?? 0);
      expect(counted).toBeGreaterThan(refusals.length);
    },
    RUN_TIMEOUT_MS,
  );
});
