// Two instances on one database without FINGERPRINT_KEYS, started together: both seal with the key kept
// in the database, so a fingerprint issued by one opens on the other.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { databaseName } from '../../src/cli/with-store.js';
import { openDatabase } from '../../src/store/database.js';
import { createPostgresSchema } from '../support/databases.js';
import { captureLog } from '../support/log-capture.js';
import { apiKey, post, startService, type TestServer } from '../support/server.js';

async function sqliteFile(): Promise<{ url: string; drop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'email-trust-fp-'));
  return { url: `sqlite:${join(dir, 'shared.sqlite')}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

/** A schema of the test PostgreSQL, reached with a password in the URL (trust authentication ignores it). */
async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = await createPostgresSchema();
  const url = new URL(schema.url);
  url.password = 'hidden-password';
  return { url: url.toString(), drop: schema.drop };
}

describe.each([
  { name: 'sqlite', database: sqliteFile },
  { name: 'postgres', database: postgresSchema },
])('fingerprints across two instances on $name', ({ database }) => {
  let storage: { url: string; drop(): Promise<void> };
  let first: TestServer;
  let second: TestServer;
  let project: CreatedProject;
  const captured = captureLog('info');

  beforeAll(async () => {
    storage = await database();
    // Migrated once, so the two starts race on the key only (as behind a load balancer after `migrate`).
    const migrated = await openDatabase(storage.url);
    await migrated.migrate();
    await migrated.close();
    [first, second] = await Promise.all([
      startService({ databaseUrl: storage.url, compose: { log: captured.log } }),
      startService({ databaseUrl: storage.url }),
    ]);
    project = await first.createProject({ name: 'fp-shared' });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await storage?.drop();
  });

  const issue = async (server: TestServer): Promise<string> => {
    const res = await post(server.url, '/v1/fingerprint', {}, apiKey(project.keys.public_key));
    expect(res.status).toBe(200);
    return res.body.fingerprint as string;
  };
  const intelligence = (server: TestServer, fingerprint: string) =>
    post(server.url, '/v1/intelligence', { email_address: 'jane@example.com', fingerprint }, apiKey(project.keys.private_key));

  it('says at start which database it uses, without its password, and that the key is kept there', () => {
    const messages = captured.lines.map((line) => line.msg);
    expect(messages).toContain(`using ${databaseName(storage.url)}`);
    expect(messages).toContain(
      'FINGERPRINT_KEYS is not set: fingerprints are sealed with a key kept in the database, readable by anyone who can read it; set FINGERPRINT_KEYS',
    );
    expect(JSON.stringify(captured.lines)).not.toContain('hidden-password');
  });

  it('a token issued by one instance is accepted by the other, both ways', async () => {
    const fromFirst = await issue(first);
    expect(fromFirst).toMatch(/^fp1\.db1\./);
    const onSecond = await intelligence(second, fromFirst);
    expect(onSecond.status, onSecond.text).toBe(200);
    expect(onSecond.body.ip).toEqual({ is_datacenter: false, is_tor: false, is_vpn: false, asn: null, as_org: null, country: null, network_type: null });
    expect((await intelligence(first, await issue(second))).status).toBe(200);
  });
});
