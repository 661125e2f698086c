// A real `serve` process and SIGHUP: a project's policy changed by `email-trust project update` on the
// same database is used at once after SIGHUP (without it, within the 5 s a cached key lookup lives), the
// process keeps serving, and /readyz reports the new revision.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { parsePolicy } from '../../src/policy/load.js';
import { openDatabase } from '../../src/store/database.js';
import { fixturePolicy } from '../http/contract.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/policies/${name}.yaml`, import.meta.url));
/** A cached key lookup (and the project it holds) lives this long: the reload must not be waiting for it. */
const KEY_CACHE_MS = 5_000;

let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/src/cli/main.js'))) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' });
  dir = await mkdtemp(join(tmpdir(), 'email-trust-sighup-'));
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Resolves with the collected text once `done(text)` holds; rejects if the process exits first or after 20 s. */
function waitFor(stream: NodeJS.ReadableStream, proc: ChildProcess, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`serve did not print what was awaited within 20 s; output so far:\n${text}`)), 20_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (done(text)) {
        stream.off('data', onData);
        clearTimeout(timer);
        resolve(text);
      }
    };
    stream.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) early; output so far:\n${text}`)));
  });
}

it('SIGHUP re-reads a project policy changed by `project update` at once; the process keeps serving', async () => {
  const databaseUrl = `sqlite:${join(dir, 'serve.sqlite')}`;
  const store = await openDatabase(databaseUrl);
  await store.migrate();
  let shop: CreatedProject;
  try {
    shop = await createProjectWithKeys(store, { name: 'shop', policy: 'plus-soft', policySource: fixturePolicy('plus-soft') });
  } finally {
    await store.close();
  }

  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off', ACCESS_LOG: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  const listening = await waitFor(proc.stderr!, proc, (t) => /"email-trust is listening".*\n/.test(t));
  const base = (JSON.parse(listening.split('\n').find((l) => l.includes('email-trust is listening')) as string) as { base: string }).base;
  const verify = async () => {
    const res = await fetch(`${base}/v1/public/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email_address: 'jane+news@example.com' }),
    });
    return { status: res.status, action: ((await res.json()) as { action: string }).action };
  };

  expect(await verify()).toEqual({ status: 200, action: 'allow' });
  const cachedAt = Date.now(); // the key lookup, holding the project's soft policy, is cached from here

  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  try {
    expect(await main(['project', 'update', 'shop', '--policy', fixture('plus-hard')])).toBe(0);
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    vi.restoreAllMocks();
  }

  const reloaded = waitFor(proc.stderr!, proc, (t) => /"policies reloaded".*\n/.test(t));
  proc.kill('SIGHUP');
  await reloaded;
  expect(await verify()).toEqual({ status: 200, action: 'block' });
  expect(Date.now() - cachedAt).toBeLessThan(KEY_CACHE_MS); // so the new answer is SIGHUP's doing, not the cache expiring
  const ready = (await (await fetch(`${base}/readyz`)).json()) as { status: string; policies: { projects: Record<string, unknown> } };
  expect(ready.status).toBe('ready');
  expect(ready.policies.projects.shop).toEqual({ policy: 'plus-hard', revision: parsePolicy('x', fixturePolicy('plus-hard')).revision });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  proc.kill('SIGTERM');
  expect(await exited).toEqual({ code: 0, signal: null });
});
