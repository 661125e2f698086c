// A real `serve` process and SIGHUP: a project's policy changed on the database (as `email-trust project
// update` does) is used at once after SIGHUP (without it, within the 5 s a cached key lookup lives), the
// process keeps serving, and /readyz reports the new revision. With WORKERS=2 (on PostgreSQL) the primary
// passes SIGHUP on to both workers.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { policyRevision } from '../../src/policy/load.js';
import { openDatabase } from '../../src/store/database.js';
import { fixturePolicy } from '../http/contract.js';
import { createPostgresSchema } from '../support/databases.js';
import { ensureBuilt, waitFor } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-sighup-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

it('SIGHUP re-reads a project policy changed on the database at once; the process keeps serving', async () => {
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
  children.push(proc);
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

  const writer = await openDatabase(databaseUrl);
  expect(await verify()).toEqual({ status: 200, action: 'allow' });

  // What `email-trust project update shop --policy plus-hard.yaml` stores (test/http/project-update.test.ts runs
  // the command itself); written here directly, so the step takes milliseconds, well inside the key cache's 5 s.
  try {
    await writer.projects.update(shop.project.id, { policy: 'plus-hard', policySource: fixturePolicy('plus-hard') });
  } finally {
    await writer.close();
  }

  // Still the soft policy: the cached key lookup holds the project. The new answer below is SIGHUP's doing.
  expect(await verify()).toEqual({ status: 200, action: 'allow' });
  const reloaded = waitFor(proc.stderr!, proc, (t) => /"policies reloaded".*\n/.test(t));
  proc.kill('SIGHUP');
  await reloaded;
  expect(await verify()).toEqual({ status: 200, action: 'block' });
  const ready = (await (await fetch(`${base}/readyz`)).json()) as { status: string; policies: { projects: Record<string, unknown> } };
  expect(ready.status).toBe('ready');
  expect(ready.policies.projects).not.toHaveProperty('shop'); // /readyz needs no key: projects by id, never by name
  expect(ready.policies.projects[shop.project.id]).toEqual({ policy: 'plus-hard', revision: policyRevision(fixturePolicy('plus-hard')) });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  proc.kill('SIGTERM');
  expect(await exited).toEqual({ code: 0, signal: null });
});

/** One verify on a connection of its own, so the cluster hands it to either worker. */
function verifyOnce(base: string, token: string): Promise<string> {
  const body = JSON.stringify({ email_address: 'jane+news@example.com' });
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/v1/public/verify`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve(`${res.statusCode} ${(JSON.parse(text) as { action: string }).action}`));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

it('WORKERS=2: the primary passes SIGHUP on to both workers, which both re-read the project', async () => {
  const schema = await createPostgresSchema();
  try {
    const store = await openDatabase(schema.url);
    let shop: CreatedProject;
    try {
      await store.migrate();
      shop = await createProjectWithKeys(store, { name: 'shop', policy: 'plus-soft', policySource: fixturePolicy('plus-soft') });
    } finally {
      await store.close();
    }
    const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: schema.url,
        WORKERS: '2',
        RATE_LIMIT_VERIFY: '0',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        NETWORK_CHECKS: 'off',
        ACCESS_LOG: 'off',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(proc);
    const workerLines = (t: string) => t.split('\n').filter((l) => l.includes('"email-trust is listening"') && l.includes('"pid"'));
    const started = await waitFor(proc.stderr!, proc, (t) => workerLines(t).length === 2);
    const base = (JSON.parse(workerLines(started)[0] as string) as { base: string }).base;
    // Each worker caches the key lookup (and the project's soft policy) on its first request.
    const before = await Promise.all(Array.from({ length: 6 }, () => verifyOnce(base, shop.keys.access_token)));
    expect(new Set(before)).toEqual(new Set(['200 allow']));

    const writer = await openDatabase(schema.url);
    try {
      await writer.projects.update(shop.project.id, { policy: 'plus-hard', policySource: fixturePolicy('plus-hard') });
    } finally {
      await writer.close();
    }
    const reloaded = waitFor(proc.stderr!, proc, (t) => (t.match(/"policies reloaded"/g) ?? []).length === 2);
    proc.kill('SIGHUP');
    await reloaded;
    const after = await Promise.all(Array.from({ length: 6 }, () => verifyOnce(base, shop.keys.access_token)));
    expect(new Set(after)).toEqual(new Set(['200 block']));

    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    await schema.drop();
  }
}, 30_000);
