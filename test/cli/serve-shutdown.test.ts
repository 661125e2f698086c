// A real `serve` process stopped with SIGTERM under load: many verifies in flight over 50 kept-alive
// connections, more queued behind them. Every request answered 200 before the process ended has its
// event in the database; none is answered 5xx (the others find the listener closed); the process exits 0.
// The same process serves /metrics on METRICS_PORT, and not on its main port. A request whose client hung
// up while its checks were still waiting (a DNS server that never answers) is handled to the end: its event
// is stored, no error is logged.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteConnection } from '../store/sqlite-connection.js';
import { startDnsServer } from '../support/dns-server.js';
import { ensureBuilt, waitFor } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const REQUESTS = 600;
const SOCKETS = 50;
/** SIGTERM is sent once this many verifies have been answered. */
const ACKED_BEFORE_SIGTERM = 40;

let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-shutdown-'));
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

type Outcome = { email: string; status: number } | { email: string; error: string };

function verify(agent: Agent, base: string, token: string, email: string): Promise<Outcome> {
  const body = JSON.stringify({ email_address: email, ipv4_address: '192.0.2.10' });
  return new Promise((resolve) => {
    const req = request(
      `${base}/v1/public/verify`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ email, status: res.statusCode ?? 0 }));
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ email, error: error.code ?? error.message }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ email, error: error.code ?? error.message }));
    req.end(body);
  });
}

/** A real `serve` on an ephemeral port with `env`, once it listens: its log lines so far and the demo access token. */
async function startServe(env: Record<string, string>, alsoWaitFor: RegExp[] = []) {
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let log = '';
  proc.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const [stdout] = await Promise.all([
    waitFor(proc.stdout!, proc, (t) => /curl .*\n/.test(t)),
    waitFor(proc.stderr!, proc, (t) => [/"email-trust is listening".*\n/, ...alsoWaitFor].every((pattern) => pattern.test(t))),
  ]);
  const lines = () =>
    log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const token = /^\s+access_token\s+(etv_\S+)/m.exec(stdout)?.[1] as string;
  return { proc, lines, token, base: lines().find((line) => line.msg === 'email-trust is listening')?.base as string };
}

it('stores the event of every verify answered 200 before SIGTERM ended the process, and exits 0', async () => {
  const databaseFile = join(dir, 'serve.sqlite');
  const { proc, lines, token, base } = await startServe(
    { DATABASE_URL: `sqlite:${databaseFile}`, NETWORK_CHECKS: 'off', RATE_LIMIT_VERIFY: '0', METRICS_PORT: '0', SHUTDOWN_TIMEOUT_MS: '30000' },
    [/"metrics are served on their own port".*\n/],
  );
  const metricsUrl = lines().find((line) => line.msg === 'metrics are served on their own port')?.metrics as string;
  expect(token).toMatch(/^etv_at_/);

  // /metrics on its own port, not on the main one.
  expect(metricsUrl).not.toContain(base);
  const metrics = await fetch(metricsUrl);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toContain('email_trust_http_requests_total');
  expect((await fetch(`${base}/metrics`)).status).toBe(404);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);

  const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS });
  let acked = 0;
  let signalled = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const outcomes = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      verify(agent, base, token, `user${i}@example.com`).then((outcome) => {
        if ('status' in outcome && outcome.status === 200 && ++acked >= ACKED_BEFORE_SIGTERM && !signalled) {
          signalled = true;
          proc.kill('SIGTERM');
        }
        return outcome;
      }),
    ),
  );
  agent.destroy();
  expect(await exited).toEqual({ code: 0, signal: null });

  const answered = outcomes.filter((o): o is { email: string; status: number } => 'status' in o);
  const failed = outcomes.filter((o): o is { email: string; error: string } => 'error' in o);
  // Every answer is a 200; a request the stopping process did not take finds no listener or a closed connection.
  expect(answered.filter((o) => o.status !== 200)).toEqual([]);
  for (const { error } of failed) expect(['ECONNREFUSED', 'ECONNRESET', 'socket hang up', 'EPIPE']).toContain(error);

  const db = await sqliteConnection(databaseFile, { readonly: true });
  const stored = new Set((await db.all<{ email: string }>('select email from events')).map((row) => row.email));
  await db.close();
  const missing = answered.filter((o) => !stored.has(o.email));
  expect(missing).toEqual([]);
  const inFlightAtSigterm = answered.length - ACKED_BEFORE_SIGTERM;
  console.info(
    `shutdown under load: ${REQUESTS} verifies sent over ${SOCKETS} sockets, SIGTERM after ${ACKED_BEFORE_SIGTERM} answers; ` +
      `${answered.length} answered 200 (${inFlightAtSigterm} of them after SIGTERM), ${failed.length} refused (${[...new Set(failed.map((o) => o.error))].join(', ')}), ` +
      `${stored.size} events stored, ${missing.length} answered but missing`,
  );
  expect(answered.length).toBeGreaterThanOrEqual(ACKED_BEFORE_SIGTERM);
  // Stored beyond those answered would be requests whose answer was lost on the way: none in a clean stop.
  expect(stored.size).toBe(answered.length);

  const stopping = lines().map((line) => line.msg);
  expect(stopping).toContain('stopping: readiness is 503, finishing requests in flight');
  expect(stopping).toContain('stopped: events committed, database closed');
}, 60_000);

it('handles a request whose client hung up to the end before closing: its event is stored, no error logged', async () => {
  const dns = await startDnsServer();
  const rdap = createServer((_req, res) => void res.writeHead(404).end());
  await new Promise<void>((done) => rdap.listen(0, '127.0.0.1', done));
  const databaseFile = join(dir, 'hangup.sqlite');
  try {
    const {
      proc,
      lines,
      token,
      base: listening,
    } = await startServe({
      DATABASE_URL: `sqlite:${databaseFile}`,
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: dns.server,
      DNS_CANARIES: 'canary.test',
      DNS_TIMEOUT_MS: '1500',
      RDAP_BASE_URL: `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`,
      WEB_CHECKS: 'off',
      SHUTDOWN_TIMEOUT_MS: '20000',
    });
    const base = new URL(listening);
    const exited = new Promise<{ code: number | null }>((resolve) => proc.once('exit', (code) => resolve({ code })));

    // The client sends its verify and hangs up while the service waits for the DNS server, which never answers.
    const body = JSON.stringify({ email_address: 'hangup@silent.test' });
    const socket = connect(Number(base.port), base.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/public/verify HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await expect.poll(() => dns.count('silent.test'), { timeout: 5_000 }).toBeGreaterThan(0);
    socket.destroy();
    // A request on a new connection answered after the hang-up: the process has read the closed socket by then.
    expect((await fetch(new URL('/readyz', base))).status).toBe(200);
    proc.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0 });

    const db = await sqliteConnection(databaseFile, { readonly: true });
    const stored = await db.all('select email, action from events');
    await db.close();
    expect(stored).toEqual([{ email: 'hangup@silent.test', action: expect.any(String) }]);
    expect(lines().filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines().map((line) => line.msg)).toContain('stopped: events committed, database closed');
  } finally {
    await new Promise((done) => rdap.close(done));
    await dns.close();
  }
}, 30_000);
