// The logger never writes credentials, request addresses or a failed statement's values (issue 10, point 6).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, safeError } from '../../src/cli/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ logLevel: 'info' }, stream), text: () => lines.join('') };
}

/** A PostgreSQL error as pg and knex hand it over: the statement in front of the message, the row in detail. */
function postgresError(): Error {
  const error = Object.assign(new Error(`insert into events (email, ipv4) values ($1, $2) - duplicate key value violates unique constraint "events_pkey"`), {
    code: '23505',
    severity: 'ERROR',
    detail: 'Key (email)=(jane@example.com) already exists.',
    where: 'SQL function "f" statement 1',
    table: 'events',
    constraint: 'events_pkey',
  });
  return error;
}

describe('safeError', () => {
  it('keeps the code and the reason of a database error, and drops the statement and the row', () => {
    const out = safeError(postgresError()) as Record<string, unknown>;
    expect(out.message).toBe('23505: duplicate key value violates unique constraint "events_pkey"');
    expect(out).toMatchObject({ code: '23505', table: 'events', constraint: 'events_pkey' });
    expect(out).not.toHaveProperty('detail');
    expect(out).not.toHaveProperty('where');
    expect(String(out.stack)).toMatch(/^Error: 23505: duplicate key/);
    expect(JSON.stringify(out)).not.toMatch(/insert into|jane@example\.com/);
  });

  it('redacts quoted values in the reason, keeps quoted names', () => {
    const error = Object.assign(new Error('select 1 - invalid input syntax for type integer: "192.0.2.1" in "events"'), { code: '22P02' });
    expect((safeError(error) as { message: string }).message).toBe('22P02: invalid input syntax for type integer: [value] in "events"');
  });

  it('scrubs an SQLite error whose message knex prefixed with values', () => {
    const error = Object.assign(new Error("insert into events (email) values ('jane@example.com') - SQLITE_CONSTRAINT: refused"), {
      code: 'SQLITE_CONSTRAINT',
      errno: 19,
    });
    const out = safeError(error) as Record<string, unknown>;
    expect(out.message).toBe('SQLITE_CONSTRAINT: refused');
    expect(JSON.stringify(out)).not.toContain('jane@example.com');
  });

  it('cleans each error of a cause chain on its own', () => {
    const driver = Object.assign(new Error("delete from events where email = 'jane@example.com' - SQLITE_BUSY: database is locked"), { code: 'SQLITE_BUSY' });
    const outer = new Error('retention pass failed', { cause: driver });
    const out = safeError(outer) as { message: string; cause: { message: string } };
    expect(out.message).toBe('retention pass failed');
    expect(out.cause.message).toBe('SQLITE_BUSY: database is locked');
    expect(JSON.stringify(out)).not.toMatch(/jane@example\.com|delete from/);
  });

  it('passes other errors through, without statement fields', () => {
    const error = Object.assign(new Error('plugin failed'), { sql: 'select ?', bindings: ['jane@example.com'], plugin: 'dns' });
    const out = safeError(error) as Record<string, unknown>;
    expect(out).toMatchObject({ message: 'plugin failed', plugin: 'dns' });
    expect(JSON.stringify(out)).not.toContain('jane@example.com');
  });
});

describe('createLogger', () => {
  it('writes errors through safeError and redacts credentials and request fields', () => {
    const { log, text } = capture();
    log.error({ err: postgresError() }, 'unexpected error');
    log.info(
      {
        req: { headers: { authorization: 'Bearer etk_secret_token', 'x-api-key': 'etk_private_key', cookie: 'sid=1' } },
        body: { email_address: 'jane@example.com', fingerprint: 'fp1.secret' },
      },
      'request',
    );
    const written = text();
    for (const secret of ['etk_secret_token', 'etk_private_key', 'sid=1', 'jane@example.com', 'fp1.secret', 'insert into'])
      expect(written, secret).not.toContain(secret);
    expect(written).toContain('[redacted]');
    expect(written).toContain('23505: duplicate key value');
  });
});
