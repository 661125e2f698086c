// What the command says of itself: `--version` and `-V`, run as a user runs them (bin/email-trust.js), print
// package.json's version; `serve --help` (main() in this process, test/support/cli-run.ts) lists every environment variable the configuration reads and says
// where each is described; that table (docs/configuration.md, "Environment variables") names every one of
// them. The variables are read from config.ts's source here, apart from the code that lists them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONFIGURATION_TABLE } from '../../src/cli/config-variables.js';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../support/cli-run.js';
import { ensureBuilt } from '../support/serve-process.js';

beforeAll(() => {
  ensureBuilt();
});

function cli(...args: string[]) {
  const run = spawnSync(process.execPath, ['bin/email-trust.js', ...args], { cwd: packageRoot, encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** Every variable name config.ts reads: `env.NAME` and the names its readers are given (`integer(env, 'NAME', …)`). */
function variablesInConfigSource(): string[] {
  const source = readFileSync(join(packageRoot, 'src/config.ts'), 'utf8');
  const names = new Set<string>();
  for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add((match[1] ?? match[2]) as string);
  return [...names].sort();
}

describe('email-trust --version', () => {
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };

  it.each(['--version', '-V'])('%s prints the package version, and only it', (flag) => {
    expect(cli(flag)).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it('is listed in the help', async () => {
    expect((await runCli('--help')).out).toMatch(/-V, --version +print the version of email-trust/);
  });
});

describe('serve --help', () => {
  const variables = variablesInConfigSource();

  it('finds the variables in config.ts (this test reads what it should)', () => {
    expect(variables).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'REDIS_PREFIX', 'DNS_SERVERS', 'WEB_CACHE_TTL_SECONDS']));
    expect(variables.length).toBeGreaterThan(35);
  });

  it('lists every variable the configuration reads, and where each is described', async () => {
    const help = await runCli('serve', '--help');
    expect(help.code).toBe(0);
    const listed = new Set(help.out.slice(help.out.indexOf('Environment variables')).match(/\b[A-Z][A-Z0-9_]{2,}\b/g));
    expect(variables.filter((name) => !listed.has(name))).toEqual([]);
    expect(help.out.replace(/\s+/g, ' ')).toContain(CONFIGURATION_TABLE);
  });

  it('points to a table that names every one of them', () => {
    const page = readFileSync(join(packageRoot, CONFIGURATION_TABLE), 'utf8');
    const start = page.indexOf('\n## Environment variables\n');
    expect(start).toBeGreaterThan(0);
    const section = page.slice(start + 1);
    const table = section.slice(0, section.indexOf('\n#'));
    const named = new Set([...table.matchAll(/^\| (.*?) \|/gm)].flatMap((row) => [...(row[1] as string).matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
    expect(variables.filter((name) => !named.has(name))).toEqual([]);
  });
});
