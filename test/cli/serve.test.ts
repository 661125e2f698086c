// End to end: `node bin/email-trust.js serve` on a fresh database prints the demo project's keys and
// a curl line; that request answers 200; SIGTERM stops the process with exit code 0. On a port that is
// taken, it exits at once, naming the address, with nothing created.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { ensureBuilt, waitFor } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-serve-'));
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

it('serves the demo project printed at start, then stops cleanly on SIGTERM', async () => {
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    // NETWORK_CHECKS=off: the answer must not depend on this machine's resolver.
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: `sqlite:${join(dir, 'serve.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NETWORK_CHECKS: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const [stdout, stderr] = await Promise.all([
    waitFor(proc.stdout!, proc, (t) => /curl .*\n/.test(t)),
    waitFor(proc.stderr!, proc, (t) => /"email-trust is listening".*\n/.test(t)),
  ]);

  const listening = stderr
    .split('\n')
    .filter((line) => line.includes('email-trust is listening'))
    .map((line) => JSON.parse(line) as { base: string; level: number; policies: string[]; network: unknown })[0];
  expect(listening?.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(listening?.base).not.toMatch(/:0$/);
  expect(listening?.policies).toContain('default');
  expect(listening?.network).toEqual({ checks: 'off' });

  expect(stdout).toMatch(/Created sandbox project "demo"/);
  const keys = Object.fromEntries([...stdout.matchAll(/^\s+(access_token|private_key|public_key)\s+(etv_\S+)/gm)].map((m) => [m[1], m[2]]));
  expect(keys.access_token).toMatch(/^etv_at_/);
  expect(keys.private_key).toMatch(/^etv_sk_/);
  expect(keys.public_key).toMatch(/^etv_pk_/);

  // The printed curl line, run as it is written.
  const curl = /curl -s -X POST (\S+) -H '([^']+)' -H '([^']+)' -d '([^']+)'/.exec(stdout);
  expect(curl).not.toBeNull();
  const [, url, ...rest] = curl as unknown as string[];
  const body = rest.pop() as string;
  expect(url).toBe(`${listening?.base}/v1/public/verify`);
  const headers = Object.fromEntries(rest.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]));
  expect(headers.Authorization).toBe(`Bearer ${keys.access_token}`);
  const res = await fetch(url as string, { method: 'POST', headers, body });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as Record<string, unknown>;
  expect(answer).toMatchObject({ action: 'allow', warnings: ['local_contains_plus_symbol'], errors: [] });
  expect(answer.steps).toEqual(expect.arrayContaining(['structure', 'ip_duplication']));

  // The printed documentation address opens the docs page.
  expect(stdout).toContain(`API documentation: ${listening?.base}/docs`);
  const docs = await fetch(`${listening?.base}/docs`);
  expect(docs.status).toBe(200);
  expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');

  // The other two keys work on their operations.
  const fp = await fetch(`${listening?.base}/v1/fingerprint`, {
    method: 'POST',
    headers: { 'x-api-key': keys.public_key ?? '', 'content-type': 'application/json' },
    body: '{}',
  });
  expect(fp.status).toBe(200);
  const intel = await fetch(`${listening?.base}/v1/intelligence`, {
    method: 'POST',
    headers: { 'x-api-key': keys.private_key ?? '', 'content-type': 'application/json' },
    body: JSON.stringify({ email_address: 'jane.doe+test@example.com', fingerprint: ((await fp.json()) as { fingerprint: string }).fingerprint }),
  });
  expect(intel.status).toBe(200);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  proc.kill('SIGTERM');
  expect(await exited).toEqual({ code: 0, signal: null });
});

it('says in its listening line that the network checks are on and which DNS servers they ask', async () => {
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: `sqlite:${join(dir, 'network.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: '127.0.0.1:5399',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const [, stderr] = await Promise.all([
    waitFor(proc.stdout!, proc, (t) => /curl .*\n/.test(t)),
    waitFor(proc.stderr!, proc, (t) => /"email-trust is listening".*\n/.test(t)),
  ]);
  const listening = JSON.parse(stderr.split('\n').find((line) => line.includes('email-trust is listening')) as string) as { network: unknown };
  expect(listening.network).toEqual({ checks: 'on', resolvers: ['127.0.0.1:5399'], resolvers_from: 'DNS_SERVERS' });
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
});

it('exits non-zero within seconds on a port that is taken, naming it, with no demo project made', async () => {
  const blocker = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  const { port } = blocker.address() as AddressInfo;
  const databaseUrl = `sqlite:${join(dir, 'taken.sqlite')}`;
  try {
    const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
      cwd: root,
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timeout = setTimeout(() => proc.kill('SIGKILL'), 45_000); // a hang: past 45 s (a slow, busy host took over 10), the signal says so
    const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timeout);
    expect({ code, signal }).toEqual({ code: 2, signal: null });
    expect(stderr).toContain(`configuration error: PORT: 127.0.0.1:${port} is already in use`);
    expect(stderr).toMatch(/another PORT/);
    expect(stdout).not.toMatch(/etv_/);
    const store = await openDatabase(databaseUrl);
    try {
      expect(await store.projects.list()).toEqual([]);
    } finally {
      await store.close();
    }
  } finally {
    blocker.close();
  }
});

// Tests run as root, where chmod does not stop a write: the unwritable places are a path through a
// regular file (ENOTDIR), a folder given as the file (EISDIR), and /proc, where nothing can be created
// (a missing folder there once made Node's recursive mkdir spin forever).
it.each([
  ['a path through a regular file', (d: string) => join(d, 'plain-file', 'data', 'et.sqlite')],
  ['a folder instead of a file', (d: string) => d],
  ['a file under /proc', () => '/proc/email-trust-test.sqlite'],
  ['a missing folder under /proc', () => '/proc/email-trust-test/data/et.sqlite'],
])('exits non-zero within seconds on an SQLite path that cannot be written (%s), naming it', async (_label, pathIn) => {
  await writeFile(join(dir, 'plain-file'), 'not a folder');
  const path = pathIn(dir);
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${path}`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timeout = setTimeout(() => proc.kill('SIGKILL'), 45_000); // a hang (as Node's recursive mkdir once did in /proc)
  const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timeout);
  expect({ signal, failed: code !== 0 }).toEqual({ signal: null, failed: true });
  expect(stderr).toMatch(/DATABASE_URL: cannot (create the folder|write the SQLite file)/);
  expect(stderr).toContain(
    path.startsWith('/proc/email-trust-test/') ? '/proc/email-trust-test' : path.includes('plain-file') ? join(dir, 'plain-file') : path,
  );
  expect(stderr).toMatch(/folder this user can write/);
});

it('warns at start about a DNS blocklist that refuses its queries, naming the zone and what to do', async () => {
  const { startDnsServer } = await import('../support/dns-server.js');
  const dns = await startDnsServer({
    'dbltest.com.dbl.refusing.test': { records: [{ type: 'A', address: '127.255.255.254' }] },
    'test.dbl.refusing.test': { records: [{ type: 'A', address: '127.255.255.254' }] },
    '2.0.0.127.zen.good.test': { records: [{ type: 'A', address: '127.0.0.2' }] },
  });
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: `sqlite:${join(dir, 'dnsbl.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: dns.server,
      DNS_TIMEOUT_MS: '300',
      DNS_CANARIES: 'off',
      DNSBL_DOMAIN_ZONES: 'dbl.refusing.test',
      DNSBL_IP_ZONES: 'zen.good.test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  try {
    const stderr = await waitFor(proc.stderr!, proc, (t) => /DNS blocklist dbl\.refusing\.test: .*\n/.test(t));
    const line = JSON.parse(stderr.split('\n').find((l) => l.includes('DNS blocklist dbl.refusing.test')) as string);
    expect(line).toMatchObject({ level: 40, zone: 'dbl.refusing.test', kind: 'domain', health: 'refused' });
    expect(line.msg).toContain('use a DQS key zone or your own recursive resolver (DNS_SERVERS)');
    expect(stderr).not.toContain('DNS blocklist zen.good.test');
  } finally {
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    await dns.close();
  }
});

it('behind a resolver that answers NXDOMAIN for every name, the printed curl line answers allow, and the log and /readyz say why', async () => {
  const { startDnsServer } = await import('../support/dns-server.js');
  const lying = await startDnsServer({}); // every name NXDOMAIN: gmail.com included
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    // The default canaries (gmail.com, outlook.com, yahoo.com) and every network check on, as `npm start` runs.
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: `sqlite:${join(dir, 'lying.sqlite')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DNS_SERVERS: lying.server,
      DNS_TIMEOUT_MS: '300',
      RDAP_BASE_URL: 'http://127.0.0.1:9/',
      WEB_CHECKS: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  try {
    const [stdout, stderr] = await Promise.all([
      waitFor(proc.stdout!, proc, (t) => /curl .*\n/.test(t)),
      waitFor(proc.stderr!, proc, (t) => /DNS self-check failed.*\n/.test(t) && /"email-trust is listening".*\n/.test(t)),
    ]);
    const lines = stderr.split('\n');
    const warning = JSON.parse(lines.find((l) => l.includes('DNS self-check failed')) as string);
    expect(warning.level).toBe(40);
    // Checked before it listens: no request meets the lying resolver unchecked.
    const listening = lines.findIndex((l) => l.includes('email-trust is listening'));
    expect(lines.findIndex((l) => l.includes('DNS self-check failed'))).toBeLessThan(listening);
    expect(warning.msg).toContain('gmail.com: nxdomain, outlook.com: nxdomain, yahoo.com: nxdomain');
    expect(warning.msg).toContain('Set DNS_SERVERS to a resolver that works, or NETWORK_CHECKS=off to run offline');

    const curl = /curl -s -X POST (\S+) -H '([^']+)' -H '([^']+)' -d '([^']+)'/.exec(stdout) as unknown as string[];
    const [, url, ...rest] = curl;
    const body = rest.pop() as string;
    const headers = Object.fromEntries(rest.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]));
    const res = await fetch(url as string, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { action: string; errors: string[]; analyzed_data: Record<string, unknown> };
    expect(answer.action).toBe('allow');
    expect(answer.errors).toEqual([]);
    expect(answer.analyzed_data.mx_record_status).toBe('not_checked');
    expect(lying.count('gmail.com', 'A')).toBe(0); // the request asked nothing

    const ready = (await (await fetch((url as string).replace('/v1/public/verify', '/readyz'))).json()) as Record<string, unknown>;
    // `data` too: the shipped Tor list is past its maximum age (test/cli/serve-data-reload.test.ts).
    expect(ready).toMatchObject({
      status: 'ready',
      degraded: ['dns', 'data'],
      checks: { dns: { ok: false, reason: expect.stringContaining('gmail.com: nxdomain') } },
    });
  } finally {
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    await lying.close();
  }
});
