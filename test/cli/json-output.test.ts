// What scripts read from the command line: every command with --json prints JSON in the API's snake_case on
// stdout, and every command that opens the database names it first on stderr (its password hidden), so the
// JSON stays parseable. Commands run in this process through main(argv), stdout and stderr captured apart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { databaseName } from '../../src/cli/with-store.js';
import { runCli } from '../support/cli-run.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shippedPolicy = join(root, 'policies', 'default.yaml');
const saved = process.env.DATABASE_URL;
let dir: string;
let databaseUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-json-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  process.env.DATABASE_URL = databaseUrl;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
  await rm(dir, { recursive: true, force: true });
});

const run = (args: readonly string[]) => runCli(...args);

/** Fields whose keys are data (list names, a check's option names), not field names. */
const MAPS = new Set(['lists', 'defaults']);

/** Every object key in `value` that is not snake_case, with its path. */
function notSnakeCase(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => notSnakeCase(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(/^[a-z][a-z0-9_]*$/.test(key) ? [] : [`${path}.${key}`]),
    ...(MAPS.has(key) ? Object.values(inner as object).flatMap((v) => notSnakeCase(v, `${path}.${key}.*`)) : notSnakeCase(inner, `${path}.${key}`)),
  ]);
}

/** Each command that takes --json, in an order that works on a fresh database; `db`: it opens the database; `setup`: a command run first. */
const JSON_COMMANDS: readonly { name: string; args: string[]; db: boolean; setup?: string[] }[] = [
  { name: 'project create', args: ['project', 'create', '--name', 'shop', '--json'], db: true },
  { name: 'project list', args: ['project', 'list', '--json'], db: true },
  { name: 'project update', args: ['project', 'update', 'shop', '--policy', 'default', '--json'], db: true },
  { name: 'project set-origins', args: ['project', 'set-origins', 'shop', 'https://shop.example', '--json'], db: true },
  { name: 'project set-quota', args: ['project', 'set-quota', 'shop', '1000', '--json'], db: true },
  { name: 'project set-reputation-sharing', args: ['project', 'set-reputation-sharing', 'shop', 'off', '--json'], db: true },
  { name: 'project usage', args: ['project', 'usage', 'shop', '--json'], db: true },
  { name: 'project lists add', args: ['project', 'lists', 'add', 'shop', 'known-abuse', 'bad.example', '--json'], db: true },
  { name: 'project lists show', args: ['project', 'lists', 'show', 'shop', '--json'], db: true },
  { name: 'project lists remove', args: ['project', 'lists', 'remove', 'shop', 'known-abuse', 'bad.example', '--json'], db: true },
  { name: 'project lists clear', args: ['project', 'lists', 'clear', 'shop', '--all', '--json'], db: true },
  { name: 'project show', args: ['project', 'show', 'shop', '--json'], db: true },
  { name: 'key create', args: ['key', 'create', '--project', 'shop', '--kind', 'public_key', '--json'], db: true },
  { name: 'key rotate', args: ['key', 'rotate', '--project', 'shop', '--kind', 'public_key', '--json'], db: true },
  { name: 'key list', args: ['key', 'list', '--project', 'shop', '--json'], db: true },
  { name: 'policy replay', args: ['policy', 'replay', '--project', 'shop', '--policy', shippedPolicy, '--workers', '0', '--json'], db: true },
  {
    name: 'events list',
    args: ['events', 'list', '--project', 'shop', '--json'],
    db: true,
    setup: ['events', 'generate', '--count', '1', '--project', 'shop'],
  },
  { name: 'events show', args: ['events', 'show', '1', '--json'], db: true },
  { name: 'feedback list', args: ['feedback', 'list', '--project', 'shop', '--history', '--json'], db: true },
  { name: 'facts', args: ['facts', '--json'], db: false },
  { name: 'data', args: ['data', '--json'], db: false },
  // A list without an upstream: skipped, so the run asks no network (test/cli/data-update.test.ts fetches).
  { name: 'data update', args: ['data', 'update', 'never-disposable.txt', '--dry-run', '--json'], db: false },
  { name: 'policy explain', args: ['policy', 'explain', '--policy', shippedPolicy, '--email', 'jane@mailinator.com', '--json'], db: false },
];

/** The full names (`project lists add`) of every command that has a --json option. */
function commandsWithJson(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const name = [...prefix, sub.name()];
    return [...(sub.options.some((o) => o.long === '--json') ? [name.join(' ')] : []), ...commandsWithJson(sub, name)];
  });
}

describe('--json output', () => {
  it('covers every command that has --json', () => {
    expect(new Set(JSON_COMMANDS.map((c) => c.name))).toEqual(new Set(commandsWithJson(buildProgram())));
  });

  it('is one JSON document in snake_case on stdout; stderr names the database first, when one is opened', async () => {
    for (const { args, db, setup } of JSON_COMMANDS) {
      if (setup) expect((await run(setup)).code, setup.join(' ')).toBe(0);
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      expect(notSnakeCase(JSON.parse(r.out)), args.join(' ')).toEqual([]);
      if (db) expect(r.err.split('\n')[0], args.join(' ')).toBe(`using ${databaseUrl}`);
      else expect(r.err, args.join(' ')).not.toMatch(/using /);
    }
  });
});

describe('the database a command uses', () => {
  // The service logs the same name at start: test/http/fingerprint-instances.test.ts checks it on PostgreSQL with a password.
  it('is named with the file a relative SQLite path means here, and a PostgreSQL password hidden', () => {
    expect(databaseName('sqlite:./data/email-trust.sqlite')).toBe(`sqlite:./data/email-trust.sqlite (${resolve('data/email-trust.sqlite')})`);
    expect(databaseName('sqlite:/srv/trust.sqlite')).toBe('sqlite:/srv/trust.sqlite');
    expect(databaseName('postgres://app:s3cret@db:5432/trust?sslmode=require')).toBe('postgres://app:***@db:5432/trust?sslmode=require');
    expect(databaseName('postgresql://app@db/trust?password=s3cret')).toBe('postgresql://app@db/trust?password=***');
  });

  it('goes to stderr before any error, and `migrate` says it the same way', async () => {
    const listed = await run(['key', 'list', '--project', 'nobody', '--json']);
    expect(listed.code).toBe(2);
    expect(listed.out).toBe('');
    expect(listed.err).toBe(`using ${databaseUrl}\nerror: no project named or with id "nobody"; see \`email-trust project list\`\n`);
    const migrated = await run(['migrate']);
    expect([migrated.code, migrated.err, migrated.out]).toEqual([0, `using ${databaseUrl}\n`, `database ${databaseUrl} is up to date\n`]);
  });
});
