// A kill -9 of a `serve` process loses no quota count (issue 46, point 3): every call answered 200 is in the
// usage table once the process is gone, as many as its stored events, on an embedded SQLite file (the store
// thread's commits) and on PostgreSQL (knex's). Counts gathered in memory and flushed every second lost up to a
// second of calls.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { monthOf } from '../../src/store/usage.js';
import { createPostgresSchema } from '../support/databases.js';
import { serveProcesses } from '../support/serve-process.js';

const { startServe } = serveProcesses();

const CALLS = 40;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-quota-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
    const { proc, base } = await startServe({ RATE_LIMIT_VERIFY: '0', DATABASE_URL: database.url });
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
