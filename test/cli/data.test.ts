// `node bin/email-trust.js data`: every data list the checks load, from the plugins' declarations,
// as a person (table) and a machine (--json) sees it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
// The JSON's rows, as the command types them.
import type { DataRow as Row } from '../../src/cli/commands/data.js';
import { ensureBuilt } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

// DATA_DIR at a folder that holds nothing: the shipped lists, whatever ./data/lists holds here.
const cli = (...args: string[]) =>
  execFileSync(process.execPath, ['bin/email-trust.js', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: join(root, 'test/fixtures/no-such-folder') },
  });

/** Files under plugins/<id>/data/ that are data (not the SOURCE.md, a build script or the sources' license NOTICES.txt), as plugin → names. */
function shippedDataFiles(): { plugin: string; name: string }[] {
  const files: { plugin: string; name: string }[] = [];
  const walk = (plugin: string, dir: string, base: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(plugin, path, base);
      // Not lists: notes, build scripts, and ip-network's count of its own files (written by its build).
      else if (!/\.(md|mjs)$/.test(entry.name) && !['NOTICES.txt', 'entries.json'].includes(entry.name)) files.push({ plugin, name: relative(base, path) });
    }
  };
  for (const plugin of readdirSync(join(root, 'plugins'))) {
    const data = join(root, 'plugins', plugin, 'data');
    if (existsSync(data)) walk(plugin, data, data);
  }
  return files;
}

let rows: Row[];
beforeAll(() => {
  ensureBuilt();
  rows = JSON.parse(cli('data', '--json')) as Row[];
});

describe('email-trust data --json', () => {
  it("lists every data file shipped under plugins/*/data/, and the two packages' tables (tld's Public Suffix List, device's time zones)", () => {
    const listed = rows.map((r) => `${r.plugin}/${r.name}`).sort();
    const packaged = ['tld/public-suffix-list', 'device/timezone-countries'];
    expect(listed).toEqual([...shippedDataFiles().map((f) => `${f.plugin}/${f.name}`), ...packaged].sort());
    expect(listed).toContain('ip-intelligence/providers/aws.txt');
    expect(listed).toContain('ip-intelligence/tor-exits.txt');
    expect(listed).toContain('ip-intelligence/vpn.txt');
    expect(listed).toContain('ip-intelligence/datacenter.txt');
  });

  it('gives each a source, a license and a date', () => {
    for (const row of rows) {
      expect(row.source.length, row.name).toBeGreaterThan(10);
      expect(row.license, row.name).toMatch(/^(n\/a|[A-Za-z0-9.-]+( AND [A-Za-z0-9.-]+)*)$/);
      expect(row.date, row.name).toMatch(/^20\d\d-\d\d-\d\d$/);
    }
    expect(rows.find((r) => r.name === 'providers/aws.txt')).toMatchObject({ plugin: 'ip-intelligence', license: 'CC0-1.0', date: '2026-08-22' });
    expect(rows.find((r) => r.plugin === 'disposable' && r.name === 'domains.txt')).toMatchObject({ license: 'CC0-1.0 AND MIT' });
    expect(rows.find((r) => r.name === 'timezone-countries')).toMatchObject({ plugin: 'device', license: 'MIT', date: '2026-08-06', entries: null });
  });

  it('says each is shipped, its age in days since its date, and the maximum age of those with an upstream', () => {
    const day = (date: string) => Math.floor((Date.now() - Date.parse(`${date}T00:00:00Z`)) / 86_400_000);
    for (const row of rows) {
      expect(row, row.name).toMatchObject({ origin: 'shipped', updated_at: null });
      expect([day(row.date) - 1, day(row.date)], row.name).toContain(row.age_days);
      expect(row.stale, row.name).toBe(row.max_age_days === null ? null : row.age_days >= row.max_age_days);
    }
    expect(rows.find((r) => r.name === 'tor-exits.txt')).toMatchObject({
      max_age_days: 1,
      stale: true,
      upstream: ['https://check.torproject.org/torbulkexitlist'],
    });
    expect(rows.find((r) => r.name === 'providers/cloudflare.txt')).toMatchObject({
      max_age_days: 7,
      upstream: ['https://www.cloudflare.com/ips-v4', 'https://www.cloudflare.com/ips-v6'],
    });
    expect(rows.find((r) => r.plugin === 'disposable' && r.name === 'domains.txt')?.max_age_days).toBe(7);
    expect(rows.find((r) => r.name === 'never-disposable.txt')).toMatchObject({ max_age_days: null, stale: null, upstream: null });
  });

  it("counts the entries each plugin loaded: non-zero, except the two lists that ship empty and the packages' uncounted tables", () => {
    const emptyByDesign = ['known-abuse/domains.txt', 'spam-trap/domains.txt'];
    for (const row of rows) {
      const id = `${row.plugin}/${row.name}`;
      if (emptyByDesign.includes(id)) expect(row.entries, id).toBe(0);
      else if (id === 'tld/public-suffix-list' || id === 'device/timezone-countries') expect(row.entries).toBeNull();
      else expect(row.entries, id).toBeGreaterThan(0);
    }
    // The collapsed AWS list of data/SOURCE.md: 3859 CIDRs.
    expect(rows.find((r) => r.name === 'providers/aws.txt')?.entries).toBe(3859);
  });
});

describe('email-trust data (table)', () => {
  it('prints one aligned line per list under a header, the same rows as --json', () => {
    const lines = cli('data').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PLUGIN\s+LIST\s+ENTRIES\s+DATE\s+ORIGIN\s+AGE\s+MAX\s+LICENSE\s+SOURCE$/);
    expect(lines.length).toBe(rows.length + 1);
    const aws = lines.find((line) => line.includes('providers/aws.txt'));
    expect(aws).toMatch(/^ip-intelligence\s+providers\/aws\.txt\s+3859\s+2026-08-22\s+shipped\s+\d+d stale\s+7d\s+CC0-1\.0\s+LA amazon\//);
    expect(lines.find((line) => line.startsWith('tld '))).toMatch(/public-suffix-list\s+-\s+2026-11-22\s+shipped\s+\d+d\s+-\s+MPL-2\.0/);
  });
});
