// `email-trust data update` as a user runs it (main() in this process, test/support/cli-run.ts), against local
// servers laid out as a DATA_SOURCES_URL mirror: the lists are installed in DATA_DIR, a refusal names its reason
// and exits 1; a process started after it (bin/email-trust.js, the built service) loads the installed lists,
// `email-trust data` says so with their age, and flags the new Tor exit; a damaged install falls back to the
// shipped list.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../support/cli-run.js';
import { ensureBuilt } from '../support/serve-process.js';
import { githubMeta, NEW_TOR_EXIT, ROUTES, startUpstreams, type UpstreamServer } from '../support/upstream-server.js';

let upstreams: UpstreamServer;
let dir: string;
const saved = { DATA_DIR: process.env.DATA_DIR, DATA_SOURCES_URL: process.env.DATA_SOURCES_URL };

beforeAll(async () => {
  ensureBuilt();
  upstreams = await startUpstreams();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-data-cli-'));
  process.env.DATA_DIR = dir;
  process.env.DATA_SOURCES_URL = upstreams.url;
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await upstreams?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The built CLI in a process of its own, which loads the lists at start. */
const built = (...args: string[]) =>
  execFileSync(process.execPath, ['bin/email-trust.js', ...args], { cwd: packageRoot, encoding: 'utf8', env: { ...process.env, DATA_DIR: dir } });

/** Whether the ip-intelligence plugin of a fresh process (built) calls the address a Tor exit. */
const isTorExit = (address: string) =>
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `const m = await import('./dist/plugins/ip-intelligence/index.js'); console.log(m.lookupIp(${JSON.stringify(address)}).tor)`],
    { cwd: packageRoot, encoding: 'utf8', env: { ...process.env, DATA_DIR: dir } },
  ).trim() === 'true';

/** The provider the ip-intelligence plugin of a fresh process (built) names for the address. */
const providerOf = (address: string) =>
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import('./dist/plugins/ip-intelligence/index.js'); console.log(m.lookupIp(${JSON.stringify(address)}).provider)`,
    ],
    { cwd: packageRoot, encoding: 'utf8', env: { ...process.env, DATA_DIR: dir } },
  ).trim();

interface DataRow {
  plugin: string;
  name: string;
  entries: number | null;
  origin: string;
  updated_at: string | null;
  age_days: number;
  max_age_days: number | null;
  stale: boolean | null;
}

describe('email-trust data update', () => {
  it('names an unknown list and exits 2', async () => {
    const run = await runCli('data', 'update', 'no-such-list.txt');
    expect([run.code, run.err]).toEqual([2, 'error: no data list named "no-such-list.txt"; see `email-trust data`\n']);
  });

  it('with --dry-run reports what would hold and installs nothing', async () => {
    const run = await runCli('data', 'update', 'tor-exits.txt', '--dry-run', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual([
      {
        plugin: 'ip-intelligence',
        list: 'tor-exits.txt',
        previous: 2277,
        outcome: 'checked',
        reason: null,
        urls: [`${upstreams.url}${ROUTES.tor}`],
        entries: 2278,
      },
    ]);
    expect(existsSync(join(dir, 'ip-intelligence'))).toBe(false);
    expect(isTorExit(NEW_TOR_EXIT)).toBe(false);
  });

  it('installs every list that has an upstream, and a new process loads them', async () => {
    const run = await runCli('data', 'update', '--json');
    expect(run.code, run.err).toBe(0);
    const results = JSON.parse(run.out) as { list: string; outcome: string }[];
    expect(results.filter((r) => r.outcome === 'installed').map((r) => r.list)).toHaveLength(18);
    expect(results.filter((r) => r.outcome === 'refused')).toEqual([]);

    const rows = JSON.parse(built('data', '--json')) as DataRow[];
    const tor = rows.find((r) => r.name === 'tor-exits.txt');
    expect(tor).toMatchObject({ origin: 'updated', age_days: 0, max_age_days: 1, stale: false });
    expect(Date.now() - Date.parse(tor?.updated_at ?? '')).toBeLessThan(600_000);
    expect(rows.filter((r) => r.origin === 'updated').map((r) => `${r.plugin}/${r.name}`)).toHaveLength(18);
    expect(rows.find((r) => r.name === 'never-disposable.txt')).toMatchObject({ origin: 'shipped', updated_at: null });
    expect(built('data')).toMatch(/ip-intelligence\s+tor-exits\.txt\s+2278\s+2026-08-22\s+updated 20\d\d-\d\d-\d\dT\d\d:\d\dZ\s+0d\s+1d\s/);
    expect(isTorExit(NEW_TOR_EXIT)).toBe(true);
  });

  it('prints each refusal with its reason, keeps the last good list, and exits 1', async () => {
    const before = readFileSync(join(dir, 'ip-intelligence', 'tor-exits.txt'), 'utf8');
    upstreams.routes.set(ROUTES.tor, { type: 'text/html', body: '<html>502 Bad Gateway</html>' });
    const run = await runCli('data', 'update', 'tor-exits.txt', 'providers/cloudflare.txt');
    expect(run.code).toBe(1);
    const lines = run.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PLUGIN\s+LIST\s+OUTCOME\s+ENTRIES\s+REASON$/);
    // The entries before: those of the list the process running the command loaded (main() runs in this worker).
    const loaded = registry.find((p) => p.id === 'ip-intelligence')?.data?.find((l) => l.name === 'tor-exits.txt')?.entries;
    expect(loaded).toBeGreaterThan(2000);
    expect(lines[1], run.out).toMatch(
      new RegExp(
        `^ip-intelligence\\s+tor-exits\\.txt\\s+refused\\s+${loaded} -> -\\s+${upstreams.url}${ROUTES.tor}: an HTML page \\(text/html\\), not the list$`,
      ),
    );
    expect(lines[2]).toMatch(/^ip-intelligence\s+providers\/cloudflare\.txt\s+installed\s+22 -> 22\s+-$/);
    expect(run.err).toBe('error: 1 of 2 lists refused; each keeps its last good list (the reasons above)\n');
    expect(readFileSync(join(dir, 'ip-intelligence', 'tor-exits.txt'), 'utf8')).toBe(before);
    expect(isTorExit(NEW_TOR_EXIT)).toBe(true);
  });

  it("one list by name: GitHub's meta, whose new range a new process then names github", async () => {
    expect(providerOf('4.144.10.1')).toBe('azure');
    upstreams.routes.set(ROUTES.github, { type: 'application/json', body: githubMeta(undefined, { copilot: ['4.144.10.0/28'] }) });
    const run = await runCli('data', 'update', 'providers/github.txt', '--json');
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual([
      {
        plugin: 'ip-intelligence',
        list: 'providers/github.txt',
        previous: 246,
        outcome: 'installed',
        reason: null,
        urls: [`${upstreams.url}${ROUTES.github}`],
        entries: 247,
      },
    ]);
    const rows = JSON.parse(built('data', '--json')) as DataRow[];
    expect(rows.find((r) => r.name === 'providers/github.txt')).toMatchObject({ origin: 'updated', entries: 247, age_days: 0, max_age_days: 7, stale: false });
    expect(providerOf('4.144.10.1')).toBe('github');
  });

  it('a damaged install is not loaded: the shipped list is', () => {
    writeFileSync(join(dir, 'ip-intelligence', 'tor-exits.txt'), `${NEW_TOR_EXIT}\n`);
    const rows = JSON.parse(built('data', '--json')) as DataRow[];
    expect(rows.find((r) => r.name === 'tor-exits.txt')).toMatchObject({ origin: 'shipped', updated_at: null, stale: true });
    expect(isTorExit(NEW_TOR_EXIT)).toBe(false);
  });
});
