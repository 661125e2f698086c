// A kill -9 of a `serve` process loses no quota count (issue 46, point 3): every call answered 200 is in the
// usage table once the process is gone, as many as its stored events, on an embedded SQLite file (the store
// thread's commits) and on PostgreSQL (knex's). Counts gathered in memory and flushed every second lost up to a
// second of calls.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { monthOf } from '../../src/store/usage.js';
import { createPostgresSchema } from '../support/databases.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CALLS = 40;
const children: ChildProcess[] = [];
let dir: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/src/cli/main.js'))) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' });
  dir = await mkdtemp(join(tmpdir(), 'email-trust-quota-kill-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts `serve` on DATABASE_URL and resolves with its base URL once it listens. */
function serve(databaseUrl: string): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off', RATE_LIMIT_VERIFY: '0', DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(proc);
  let text = '';
  return new Promise((resolve, reject) => {
    proc.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n').find((l) => l.includes('"email-trust is listening"'));
      if (line) resolve({ proc, base: (JSON.parse(line) as { base: string }).base });
    });
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) early:\n${text}`)));
  });
}

const databases = [
  { name: 'an embedded SQLite file', url: async () => ({ url: `sqlite:${join(dir, 'kill.sqlite')}`, drop: async () => {} }) },
  { name: 'PostgreSQL', url: () => createPostgresSchema() },
];

describe.each(databases)('serve on $name, killed with SIGKILL right after its last answer', ({ url }) => {
  let database: { url: string; drop(): Promise<void> };
  let token = '';
  let projectId = '';
  beforeAll(async () => {
    database = await url();
    const store = await openDatabase(database.url);
    try {
      await store.migrate();
      const created = await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
      await store.projects.update(created.project.id, { monthlyQuota: 1000 });
      token = created.keys.access_token;
      projectId = created.project.id;
    } finally {
      await store.close();
    }
  });
  afterAll(() => database?.drop());

  it(`keeps the count of every call it answered: ${CALLS} answered, ${CALLS} in the usage table`, async () => {
    const { proc, base } = await serve(database.url);
    const statuses = await Promise.all(
      Array.from({ length: CALLS }, (_, n) =>
        fetch(`${base}/v1/public/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ email_address: `user${n}@example.com` }),
        }).then((res) => res.status),
      ),
    );
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
    expect(statuses).toEqual(Array(CALLS).fill(200));

    const store = await openDatabase(database.url);
    try {
      const [row] = await store.knex('events').where({ project_id: projectId }).count({ n: '*' });
      expect(Number(row?.n)).toBe(CALLS);
      expect(await store.usage.get(projectId, monthOf(Date.now()))).toBe(CALLS);
    } finally {
      await store.close();
    }
  });
});
