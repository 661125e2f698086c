// The writer thread of an embedded SQLite file (src/store/sqlite-writer.ts): a thread that does not answer
// in time fails its calls as an outage (503) and is replaced by the next call, and what the new thread
// commits is in the file. Its data_version readings are what the velocity cache trusts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { openSqliteWriter } from '../../src/store/sqlite-writer.js';
import { isUnavailable } from '../../src/store/unavailable.js';
import { failureOf, type SqliteConnection, sqliteConnection } from './sqlite-connection.js';

const AT = 1_800_000_000_000;
const row = (email: string) => ({
  project_id: 'prj_thread',
  endpoint: 'verify',
  email,
  email_lower: email,
  base_email: email,
  domain: 'x.io',
  ipv4: '192.0.2.9',
  ipv6: null,
  device: null,
  action: 'allow',
  risk_score: null,
  policy_revision: null,
  recorded_facts: null,
  fingerprint_token: null,
  created_at: AT,
  decision_id: null,
  request_id: null,
  policy_name: null,
  errors: null,
  warnings: null,
  parent_rule: null,
});

describe('the SQLite writer thread', () => {
  let dir: string;
  let file: string;
  let other: SqliteConnection;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-writer-'));
    file = join(dir, 'store.sqlite');
    const store = await openDatabase(`sqlite:${file}`);
    await store.migrate();
    await store.close();
    other = await sqliteConnection(file);
  });
  afterAll(async () => {
    await other.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits rows with their counters and answers the increments', async () => {
    const writer = openSqliteWriter(file);
    try {
      const { increments } = await writer.commit([row('a@x.io'), row('b@x.io')], false);
      const total = increments.counts.find((c) => c.kind === 'ipv4' && c.bucket === Number.MAX_SAFE_INTEGER);
      expect(total).toMatchObject({ subject: '192.0.2.9', validations: 2, addresses: 2 });
      expect(await other.all('select email from events where project_id = ? order by email', 'prj_thread')).toEqual([{ email: 'a@x.io' }, { email: 'b@x.io' }]);
    } finally {
      await writer.close();
    }
  });

  it('that does not answer in time fails its call as an outage; the next call starts another thread, which commits', async () => {
    const writer = openSqliteWriter(file, { answerTimeoutMs: 300 });
    try {
      await writer.commit([row('before@x.io')], false); // the thread is up
      await expect.poll(() => writer.version(), { timeout: 2_000 }).not.toBeNull();
      await other.run('begin immediate'); // the thread waits for the lock, past the answer timeout
      let failure: unknown;
      try {
        failure = await failureOf(() => writer.commit([row('stuck@x.io')], false));
      } finally {
        await other.run('rollback');
      }
      expect(isUnavailable(failure)).toBe(true);
      expect(String((failure as Error).message)).toMatch(/writer thread stopped: no answer within 300 ms/);
      expect(writer.version()).toBeNull(); // the velocity cache answers nothing until the next thread reads
      await writer.commit([row('after@x.io')], false);
      const emails = (await other.all<{ email: string }>('select email from events where project_id = ?', 'prj_thread')).map((r) => r.email);
      expect(emails).toContain('after@x.io');
      await expect.poll(() => writer.version(), { timeout: 2_000 }).not.toBeNull();
    } finally {
      await writer.close();
    }
  });

  it("reports another connection's commit as a new version", async () => {
    const writer = openSqliteWriter(file);
    try {
      await writer.commit([row('c@x.io')], false);
      await expect.poll(() => writer.version(), { timeout: 2_000 }).not.toBeNull();
      const before = writer.version();
      await other.run("insert into domain_facts (domain, kind, value, expires_at, updated_at) values ('v.example', 'mx', 'null', 1, 1)");
      await expect.poll(() => writer.version(), { timeout: 2_000 }).not.toBe(before);
    } finally {
      await writer.close();
    }
  });
});
