// `node bin/email-trust.js project lists …` (the built CLI) against a temporary SQLite file: what a person
// at the terminal sees (stdout, stderr, exit code) and what lands in project_list_entries. Refusals of bad
// arguments run in-process through main() (the same program, without a process start each).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { ensureBuilt } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let databaseUrl: string;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the built command in the temporary folder, on the temporary database, with `input` on its stdin. */
function bin(args: string[], input?: string): Run {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
  const r = spawnSync(process.execPath, [join(root, 'bin/email-trust.js'), ...args], { cwd: dir, env, input, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** main(args) in this process, in the temporary folder (so FILEs are relative to it), on the temporary database, capturing what it prints. */
async function run(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = process.env.DATABASE_URL;
  const cwd = process.cwd();
  process.env.DATABASE_URL = databaseUrl;
  process.chdir(dir);
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.map(String).join(' ')}\n`)),
  ];
  try {
    return { code: await main(args), out: out.join(''), err: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
    process.chdir(cwd);
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

/** Every (project name, list, domain) row, straight from the table. */
async function rows(): Promise<string[]> {
  const store = await openDatabase(databaseUrl);
  try {
    const found = await store
      .knex('project_list_entries as e')
      .join('projects as p', 'p.id', 'e.project_id')
      .orderBy(['p.name', 'e.list', 'e.domain'])
      .select('p.name', 'e.list', 'e.domain');
    return found.map((r: { name: string; list: string; domain: string }) => `${r.name} ${r.list} ${r.domain}`);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-lists-cli-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  const store = await openDatabase(databaseUrl);
  try {
    await store.migrate();
    await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
    const noTraps = 'version: "1.0"\ndefault_action: allow\nchecks:\n  known_abuse_domain: { mode: hard, action: block }\n';
    await createProjectWithKeys(store, { name: 'other', policy: 'no-traps', policySource: noTraps });
  } finally {
    await store.close();
  }
  await writeFile(
    join(dir, 'abuse.txt'),
    ['# abuse sources, 2026-11', 'Bad.Example', '', 'bücher.example   # IDN', 'jane@bad.example', 'sub.bad.example.', '*.wild.example', 'com'].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('project lists add', () => {
  it('refuses a file with bad lines, naming each with its line number, and writes nothing', async () => {
    const r = await run('project', 'lists', 'add', 'shop', 'known-abuse', 'abuse.txt');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toEqual([
      'abuse.txt:5: "jane@bad.example": a domain, not an address: write what follows the @',
      'abuse.txt:7: "*.wild.example": write the domain without "*.": its subdomains are matched anyway',
      'abuse.txt:8: "com": a single label (a top-level domain): list domains under it',
      'error: 3 line(s) refused; nothing was changed (fix them, or give --skip-invalid to add the valid ones)',
    ]);
    expect(await rows()).toEqual([]);
  });

  it('with --skip-invalid adds the valid lines (lower case, punycode, no root dot) and reports the rest', async () => {
    const r = await run('project', 'lists', 'add', 'shop', 'known-abuse', 'abuse.txt', '--skip-invalid');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^Project "shop" \(prj_[0-9a-f]+\): added 3 domain\(s\) to the known-abuse list \(0 already on it\); 3 refused line\(s\) skipped; it holds 3 of at most 100000\. Running services apply it within 5 seconds\.\n$/,
    );
    expect(r.err).toContain('abuse.txt:5: "jane@bad.example"');
    expect(await rows()).toEqual(['shop known-abuse bad.example', 'shop known-abuse sub.bad.example', 'shop known-abuse xn--bcher-kva.example']);
  });

  it('takes domains as arguments and from stdin (-); --json counts those already listed', () => {
    const r = bin(['project', 'lists', 'add', 'shop', 'known-abuse', 'BAD.example', 'new.example', '-', '--json'], 'piped.example\nnew.example\n');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      project: { id: expect.stringMatching(/^prj_/), name: 'shop', sandbox: false, policy: 'default' },
      list: 'known-abuse',
      added: 2,
      already_listed: 1,
      total: 5,
      refused: [],
    });
  });

  it('refuses an argument that is neither a file nor a domain, an unknown list and an unknown project', async () => {
    const missing = await run('project', 'lists', 'add', 'shop', 'spam-trap', join(dir, 'missing.txt'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`argument:1: "${join(dir, 'missing.txt')}": neither a file nor a domain`);
    const list = await run('project', 'lists', 'add', 'shop', 'abuse', 'x.example');
    expect(list.code).toBe(2);
    expect(list.err).toBe('error: unknown list "abuse"; lists: disposable, not-disposable, exempt, known-abuse, not-known-abuse, spam-trap, not-spam-trap\n');
    const project = await run('project', 'lists', 'add', 'nope', 'spam-trap', 'x.example');
    expect(project.code).toBe(2);
    expect(project.err).toContain('no project named or with id "nope"');
    expect((await rows()).filter((row) => row.includes('spam-trap'))).toEqual([]);
  });

  it("notes when the project's policy does not enable the list's check", async () => {
    const r = await run('project', 'lists', 'add', 'other', 'spam-trap', 'trap.example');
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      `using ${databaseUrl}\nnote: policy no-traps does not enable the spam-trap check (spam_trap_domain): this list has no effect until it does\n`,
    );
    expect((await run('project', 'lists', 'add', 'other', 'known-abuse', 'abuse.example')).err).toBe(`using ${databaseUrl}\n`);
  });

  it('refuses a change past 100,000 entries a list, writing nothing', async () => {
    await writeFile(join(dir, 'big.txt'), Array.from({ length: 100_000 }, (_, i) => `d${i}.example`).join('\n'));
    const r = await run('project', 'lists', 'add', 'shop', 'disposable', join(dir, 'big.txt'), 'one-more.example');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`using ${databaseUrl}\nerror: the disposable list would hold 100001 entries; a list holds at most 100000; nothing was changed\n`);
    expect((await rows()).filter((row) => row.includes(' disposable '))).toEqual([]);
  });
});

describe('project lists show, remove, clear', () => {
  it('shows every list with its count and entries, or one list as JSON', async () => {
    const text = await run('project', 'lists', 'show', 'shop');
    expect(text.code).toBe(0);
    expect(text.out.split('\n').slice(1)).toEqual([
      'disposable       0 entries',
      'not-disposable   0 entries',
      'exempt           0 entries',
      'known-abuse      5 entries',
      '  bad.example',
      '  new.example',
      '  piped.example',
      '  sub.bad.example',
      '  xn--bcher-kva.example',
      'not-known-abuse  0 entries',
      'spam-trap        0 entries',
      'not-spam-trap    0 entries',
      '',
    ]);
    const json = JSON.parse((await run('project', 'lists', 'show', 'other', 'spam-trap', '--json')).out);
    expect(json).toEqual({
      project: expect.objectContaining({ name: 'other', policy: 'no-traps' }),
      max_entries: 100_000,
      lists: { 'spam-trap': { count: 1, entries: ['trap.example'] } },
    });
  });

  it('removes domains given in a file or as arguments, counting those not listed', async () => {
    await writeFile(join(dir, 'gone.txt'), '# no longer abusive\nnew.example\n');
    const r = await run('project', 'lists', 'remove', 'shop', 'known-abuse', 'gone.txt', 'Piped.Example', 'never.example', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ list: 'known-abuse', removed: 2, not_listed: 1, total: 3 });
    expect((await rows()).filter((row) => row.startsWith('shop'))).toEqual([
      'shop known-abuse bad.example',
      'shop known-abuse sub.bad.example',
      'shop known-abuse xn--bcher-kva.example',
    ]);
  });

  it('clears one list, or every list with --all, of one project only', async () => {
    const neither = await run('project', 'lists', 'clear', 'shop');
    expect([neither.code, neither.err]).toEqual([2, 'error: give one list to clear, or --all to clear every list of the project\n']);
    expect((await run('project', 'lists', 'clear', 'shop', 'known-abuse', '--all')).code).toBe(2);
    const one = await run('project', 'lists', 'clear', 'other', 'spam-trap');
    expect(one.out).toMatch(/cleared the spam-trap list \(1 entries removed\)/);
    expect(await rows()).toEqual([
      'other known-abuse abuse.example',
      'shop known-abuse bad.example',
      'shop known-abuse sub.bad.example',
      'shop known-abuse xn--bcher-kva.example',
    ]);
    expect(JSON.parse((await run('project', 'lists', 'clear', 'shop', '--all', '--json')).out)).toMatchObject({ list: null, removed: 3 });
    expect(await rows()).toEqual(['other known-abuse abuse.example']);
  });
});
