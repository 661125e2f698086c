// Issue 10, points 1 and 6: one request whose event the database refuses, among hundreds of concurrent
// verifies from two projects, fails alone (every other request is answered and stored), and the log of
// that failure holds no address, IP, key, token nor SQL statement. The database refuses one address
// through a trigger, the way it would refuse any row that passed validation but cannot be stored.
import { Writable } from 'node:stream';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { expectStatusError } from './contract.js';

const REQUESTS = 300;
const POISONED = 150;
const NUL = 75;
const POISON = 'poison@example.com';

const emailOf = (i: number) => (i === POISONED ? POISON : i === NUL ? `nul\u0000${i}@example.com` : `user${i}@example.com`);
const ipOf = (i: number) => `203.0.113.${i % 250}`;

const refuseOnInsert: Record<'sqlite' | 'postgres', (knex: Knex) => Promise<unknown>> = {
  sqlite: (knex) =>
    knex.raw(`create trigger refuse_poison before insert on events when new.email = '${POISON}' begin select raise(abort, 'refused by the test'); end`),
  postgres: async (knex) => {
    await knex.raw(
      `create function refuse_poison() returns trigger language plpgsql as $$
       begin if new.email = '${POISON}' then raise exception 'refused by the test'; end if; return new; end $$`,
    );
    await knex.raw('create trigger refuse_poison before insert on events for each row execute function refuse_poison()');
  },
};

describe.each(['sqlite', 'postgres'] as const)('a verify whose event the database refuses, among 300 concurrent ones from two projects, on %s', (database) => {
  let server: TestServer;
  let projects: CreatedProject[];
  let replies: Reply[];
  const log: string[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log.push(
          ...String(chunk)
            .split('\n')
            .filter((line) => line !== ''),
        );
        done();
      },
    });
    server = await startService({ database, compose: { log: createLogger({ logLevel: 'info' }, stream) } });
    projects = [await server.createProject({ name: 'alpha' }), await server.createProject({ name: 'beta' })];
    await refuseOnInsert[database](server.service.store.knex);
    replies = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        post(
          server.url,
          '/v1/public/verify',
          { email_address: emailOf(i), ipv4_address: ipOf(i) },
          bearer((projects[i % 2] as CreatedProject).keys.access_token),
        ),
      ),
    );
  }, 60_000);
  afterAll(() => server?.close());

  it('answers every other request 200 and stores its event in its own project', async () => {
    const others = replies.flatMap((r, i) => (i === POISONED || i === NUL ? [] : [{ i, status: r.status }]));
    expect(others.filter((o) => o.status !== 200)).toEqual([]);
    expect(others).toHaveLength(REQUESTS - 2);
    for (const [p, project] of projects.entries()) {
      const stored = (await server.service.store.knex('events').where({ project_id: project.project.id }).pluck('email')) as string[];
      const expected = others.filter((o) => o.i % 2 === p).map((o) => emailOf(o.i));
      expect(stored.sort()).toEqual(expected.sort());
    }
  });

  it('fails the refused one alone, with a 500 and an id; refuses the one with U+0000 at validation (400)', () => {
    expectStatusError(replies[POISONED] as Reply, 500);
    expect((replies[POISONED] as Reply).body.error).toMatch(/^unexpected error; quote id [0-9a-f-]{36}/);
    expectStatusError(replies[NUL] as Reply, 400);
    expect((replies[NUL] as Reply).body.error).toContain('email_address');
  });

  it('logs the failure once, at error, with the driver’s code and reason but no statement, address, IP, key or token', () => {
    const errors = log.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string; code?: string } }).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe('unexpected error');
    expect(errors[0]?.err?.message).toMatch(/refused by the test/);
    expect(errors[0]?.err?.code).toMatch(database === 'sqlite' ? /^SQLITE_CONSTRAINT/ : /^P0001$/);
    const text = log.join('\n');
    for (const secret of ['@example.com', '203.0.113.', ...projects.flatMap((p) => Object.values(p.keys))]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(text).not.toMatch(/insert into|values \(/i);
  });
});
