// A database that goes away: the service answers 503 with Retry-After and an id, in each operation's
// error shape, never a 500 and never an error-level log line, also for requests whose key it cannot
// check; once the database is back it answers 200 again without a restart. The database is the machine's
// real PostgreSQL, reached through a TCP proxy the test cuts (connections reset, nothing listening).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import knexFactory, { type Knex } from 'knex';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../src/http/middleware/errors.js';
import { TEST_POSTGRES_URL } from '../support/databases.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { expectPlainError, expectStatusError } from './contract.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('PostgreSQL unreachable (a cut proxy), then back', () => {
  const schema = `t_${randomBytes(8).toString('hex')}`;
  const logLines: { level: number; msg: string }[] = [];
  let admin: Knex;
  let proxy: TcpProxy;
  let server: TestServer;
  let project: CreatedProject;

  beforeAll(async () => {
    admin = knexFactory({ client: 'pg', connection: TEST_POSTGRES_URL });
    await admin.raw('create schema ??', [schema]);
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_POSTGRES_URL);
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('options', `-c search_path=${schema}`);
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
          done();
        },
      }),
    );
    server = await startService({ databaseUrl: viaProxy.toString(), compose: { log } });
    project = await server.createProject({ name: 'outage' });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await admin?.raw('drop schema if exists ?? cascade', [schema]);
    await admin?.destroy();
  });

  const verify = (token: string, email = 'a@example.com') =>
    post(server.url, '/v1/public/verify', { email_address: email, ipv4_address: '192.0.2.1' }, bearer(token));
  const intelligence = (key: string) => post(server.url, '/v1/intelligence', { email_address: 'a@example.com' }, apiKey(key));

  it('answers 503 with Retry-After while it is cut, and 200 again once it is back', async () => {
    expect((await verify(project.keys.access_token)).status).toBe(200);
    expect((await intelligence(project.keys.private_key)).status).toBe(200);

    await proxy.cut();
    // Keys already checked (cached): the operation itself cannot reach the store.
    const down = await verify(project.keys.access_token, 'b@example.com');
    expectStatusError(down, 503);
    expect(down.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(down.body.id).toMatch(UUID);
    expect(down.body.error).toContain(down.body.id);
    expect(down.body.error).toMatch(/database/);
    const intel = await intelligence(project.keys.private_key);
    expectPlainError(intel, 503);
    expect(intel.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(intel.body.error).toMatch(UUID);
    // A key never seen: authentication itself cannot reach the store.
    const unknownKey = await verify(`etv_at_${'Q'.repeat(43)}`);
    expectStatusError(unknownKey, 503);
    expectPlainError(await intelligence(`etv_sk_${'Q'.repeat(43)}`), 503);

    await proxy.restore();
    const back = await verify(project.keys.access_token, 'c@example.com');
    expect(back.status).toBe(200);
    expect((await intelligence(project.keys.private_key)).status).toBe(200);
    // The refused requests stored nothing; the others did.
    const emails = (await admin.withSchema(schema).from('events').select('email')).map((row: { email: string }) => row.email).sort();
    expect(emails).toEqual(['a@example.com', 'a@example.com', 'a@example.com', 'c@example.com']);

    // An outage is a warning (at most one a second per reason: log-throttle.ts), not an error, and the log quotes no SQL.
    const outages = logLines.filter((line) => line.msg === 'database unavailable');
    expect(outages.length).toBeGreaterThanOrEqual(1);
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
    expect(JSON.stringify(outages)).not.toMatch(/insert|select|example\.com/i);
  });
});
