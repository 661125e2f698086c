// Issue 51's done-when for fresh data: a real `serve` process answers verify calls while `email-trust data
// update` fetches the Tor exit list from local servers (the upstream's real format) into its DATA_DIR; after
// SIGHUP, or within DATA_RELOAD_INTERVAL without a signal, the new exit address is flagged (vpn_detected)
// without a restart, and every call in between was answered.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { packageRoot } from '../../src/paths.js';
import { openDatabase } from '../../src/store/database.js';
import { runCli } from '../support/cli-run.js';
import { ensureBuilt, waitFor } from '../support/serve-process.js';
import { NEW_TOR_EXIT, startUpstreams, type UpstreamServer } from '../support/upstream-server.js';

let dir: string;
let upstreams: UpstreamServer;
const children: ChildProcess[] = [];
const saved = { DATA_DIR: process.env.DATA_DIR, DATA_SOURCES_URL: process.env.DATA_SOURCES_URL };

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-data-reload-'));
  upstreams = await startUpstreams();
  process.env.DATA_SOURCES_URL = upstreams.url;
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await upstreams?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A serve process on its own database and DATA_DIR, with project `shop` (the default policy: vpn_ip soft). */
async function startServe(name: string, env: Record<string, string> = {}) {
  const databaseUrl = `sqlite:${join(dir, `${name}.sqlite`)}`;
  const dataDir = join(dir, `${name}-lists`);
  const store = await openDatabase(databaseUrl);
  await store.migrate();
  let shop: CreatedProject;
  try {
    shop = await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
  } finally {
    await store.close();
  }
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: packageRoot,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NETWORK_CHECKS: 'off',
      ACCESS_LOG: 'off',
      RATE_LIMIT_VERIFY: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  /** The first line of the whole log so far (or to come, within 60 s) that holds `text`. */
  const logLine = (text: string): Promise<string> => {
    const found = () => stderr.split('\n').find((l) => l.includes(text) && l.endsWith('}'));
    const now = found();
    if (now) return Promise.resolve(now);
    return waitFor(proc.stderr as NodeJS.ReadableStream, proc, () => found() !== undefined).then(() => found() as string);
  };
  const listening = await waitFor(proc.stderr as NodeJS.ReadableStream, proc, (t) => /"email-trust is listening".*\n/.test(t));
  const ready = async () =>
    (await (await fetch(`${base}/readyz`)).json()) as { status: string; degraded?: string[]; checks: Record<string, { reason?: string }> };
  const base = (JSON.parse(listening.split('\n').find((l) => l.includes('email-trust is listening')) as string) as { base: string }).base;
  /** The warnings of a verify call from the new Tor exit. */
  const verifyFromNewExit = async () => {
    const res = await fetch(`${base}/v1/public/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email_address: 'jane.doe@example.com', ipv4_address: NEW_TOR_EXIT, show_results: true }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { warnings: string[] }).warnings;
  };
  /** The action on an address of the domain the disposable update adds. */
  const actionOnNewThrowaway = async () => {
    const res = await fetch(`${base}/v1/public/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email_address: 'jane@throwaway-fresh-7781.com' }),
    });
    return ((await res.json()) as { action: string }).action;
  };
  const stop = async () => {
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  };
  return { proc, dataDir, logLine, ready, verifyFromNewExit, actionOnNewThrowaway, stop };
}

/** Verify calls one after another until `stop` resolves: how many were answered (each must be a 200). */
function keepAsking(ask: () => Promise<unknown>, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  return (async () => {
    let answered = 0;
    while (!done) {
      await ask();
      answered += 1;
    }
    return answered;
  })();
}

it('SIGHUP: the Tor exit and the throwaway domain that `data update` installed are flagged without a restart, every call meanwhile is answered, and the stale lists are reported until then', async () => {
  const serve = await startServe('sighup');
  expect(await serve.verifyFromNewExit()).not.toContain('vpn_detected');
  expect(await serve.actionOnNewThrowaway()).toBe('allow');
  // The shipped lists with an upstream are past their maximum age: one warning at start, `data` degraded.
  const warning = JSON.parse(await serve.logLine('data lists past their maximum age')) as { level: number; stale: string[]; msg: string };
  expect(warning.level).toBe(40);
  expect(warning.stale).toContainEqual(expect.stringMatching(/^ip-intelligence\/tor-exits\.txt \(\d+ days old, at most 1\)$/));
  // How many are past it depends on the day the test runs (a list rebuilt last week is not): as `data` says.
  const rows = JSON.parse((await runCli('data', '--json')).out) as { stale: boolean | null }[];
  expect(warning.stale).toHaveLength(rows.filter((r) => r.stale === true).length);
  expect(warning.msg).toContain('run `email-trust data update`');
  const before = await serve.ready();
  expect(before).toMatchObject({ status: 'ready', degraded: ['data'] });
  expect(before.checks.data?.reason).toContain('ip-intelligence/tor-exits.txt (');

  process.env.DATA_DIR = serve.dataDir;
  const updatedAndReloaded = (async () => {
    const update = await runCli('data', 'update');
    expect(update.code, update.err).toBe(0);
    const reloaded = waitFor(serve.proc.stderr as NodeJS.ReadableStream, serve.proc, (t) => /"data lists reloaded".*\n/.test(t));
    serve.proc.kill('SIGHUP');
    const line = (await reloaded).split('\n').find((l) => l.includes('data lists reloaded')) as string;
    const { changed } = JSON.parse(line) as { changed: string[] };
    expect(changed).toHaveLength(18);
    expect(changed).toEqual(
      expect.arrayContaining([expect.stringMatching(/^disposable\/domains\.txt 20\d\d-/), expect.stringMatching(/^ip-intelligence\/tor-exits\.txt 20\d\d-/)]),
    );
  })();
  const answered = await keepAsking(serve.verifyFromNewExit, updatedAndReloaded);
  await updatedAndReloaded;
  expect(answered).toBeGreaterThan(0);
  expect(await serve.verifyFromNewExit()).toContain('vpn_detected');
  expect(await serve.actionOnNewThrowaway()).toBe('block');
  expect((await serve.ready()).degraded).toBeUndefined();
  await serve.stop();
});

it('DATA_RELOAD_INTERVAL: the update is picked up within the interval, with no signal', async () => {
  const serve = await startServe('interval', { DATA_RELOAD_INTERVAL: '1' });
  expect(await serve.verifyFromNewExit()).not.toContain('vpn_detected');
  process.env.DATA_DIR = serve.dataDir;
  // The reloads before the update change nothing; the first after it names the list.
  const changedTor = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.includes('"data lists reloaded"'))
      .some((line) => (JSON.parse(line) as { changed: string[] }).changed.some((list) => list.startsWith('ip-intelligence/tor-exits.txt ')));
  const reloaded = waitFor(serve.proc.stderr as NodeJS.ReadableStream, serve.proc, changedTor);
  expect((await runCli('data', 'update', 'tor-exits.txt')).code).toBe(0);
  await reloaded;
  expect(await serve.verifyFromNewExit()).toContain('vpn_detected');
  await serve.stop();
});

it('two instances on one DATA_DIR: the one with DATA_UPDATE_INTERVAL fetches and installs, both flag the new Tor exit without a restart, and each upstream is asked once a run', async () => {
  const shared = join(dir, 'shared-lists');
  upstreams.asked.length = 0;
  const updater = await startServe('updater', { DATA_DIR: shared, DATA_SOURCES_URL: upstreams.url, DATA_UPDATE_INTERVAL: '3600' });
  const reader = await startServe('reader', { DATA_DIR: shared, DATA_RELOAD_INTERVAL: '1' });
  // The updater's first run, about 2 s after its start: its summary, then its own reload.
  const summary = JSON.parse(await updater.logLine('"data update: ')) as { level: number; installed: string[]; skipped: number; msg: string };
  expect(summary.level).toBe(30);
  expect(summary.installed).toEqual(expect.arrayContaining(['ip-intelligence/tor-exits.txt', 'disposable/domains.txt']));
  expect(summary.msg).toMatch(/^data update: \d+ installed, 0 refused/);
  await updater.logLine('"data lists reloaded"');
  expect(await updater.verifyFromNewExit()).toContain('vpn_detected');
  // The other instance fetched nothing: it reloads what the first installed within its interval.
  await reader.logLine('ip-intelligence/tor-exits.txt 20');
  expect(await reader.verifyFromNewExit()).toContain('vpn_detected');
  expect(await reader.actionOnNewThrowaway()).toBe('block');
  const torAsked = upstreams.asked.filter((path) => path === '/check.torproject.org/torbulkexitlist');
  expect(torAsked).toHaveLength(1);
  expect(existsSync(join(shared, '.update.lock'))).toBe(false);
  await Promise.all([updater.stop(), reader.stop()]);
});
