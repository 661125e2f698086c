// `email-trust rdap refresh FILE` and `rdap status`, run as a user runs them, in a folder of their
// own: the file is checked (RFC 9224 shape, http(s) URLs, no TLD twice), installed byte for byte as
// data/rdap-dns.json, and then the one the service reads. The command runs through the CLI's own
// main() (as test/cli/cli.test.ts does), and once through the built bin/email-trust.js.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { createRegistrationLookup } from '../../src/network/rdap.js';
import { BootstrapFileError, checkBootstrap, DEFAULT_BOOTSTRAP_FILE, defaultBootstrapFile, installedBootstrapFile } from '../../src/network/rdap-bootstrap.js';
import { ensureBuilt } from '../support/serve-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const startDir = process.cwd();
const savedBootstrap = process.env.RDAP_BOOTSTRAP_FILE;

/** Runs the command in `cwd` through main(); RDAP_BOOTSTRAP_FILE only when given. */
async function cli(cwd: string, args: string[], bootstrapFile?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.map(String).join(' ')}\n`)),
  ];
  if (bootstrapFile === undefined) delete process.env.RDAP_BOOTSTRAP_FILE;
  else process.env.RDAP_BOOTSTRAP_FILE = bootstrapFile;
  process.chdir(cwd);
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(startDir);
    for (const spy of spies) spy.mockRestore();
    if (savedBootstrap === undefined) delete process.env.RDAP_BOOTSTRAP_FILE;
    else process.env.RDAP_BOOTSTRAP_FILE = savedBootstrap;
  }
}

/** Runs the built command as a user does, in `cwd`, without RDAP_BOOTSTRAP_FILE. */
function bin(cwd: string, args: string[]) {
  const env = { ...process.env };
  delete env.RDAP_BOOTSTRAP_FILE;
  const run = spawnSync(process.execPath, [join(root, 'bin/email-trust.js'), ...args], { cwd, env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** An IANA-shaped dns.json of our own: same fields and layout as data.iana.org/rdap/dns.json. */
function ianaFile(publication: string, services: unknown[]): string {
  return `${JSON.stringify({ description: 'RDAP bootstrap file for Domain Name System registrations', publication, services, version: '1.0' }, null, 2)}\n`;
}
const GOOD_SERVICES = [
  [['com', 'net'], ['https://rdap.verisign.com/com/v1/']],
  [['org'], ['https://rdap.publicinterestregistry.org/rdap/']],
  [['xn--p1ai', 'su'], ['https://rdap.tcinet.ru/']],
  [['kg'], ['http://rdap.cctld.kg/']],
  [['example-two'], ['http://rdap.example-two/', 'https://rdap.example-two/']],
];

let dir: string;
let work: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'rdap-cli-'));
  work = join(dir, 'service');
  mkdirSync(work);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('email-trust rdap status', () => {
  it('names the shipped copy, with its publication date and counts, when nothing is installed', async () => {
    const { code, stdout } = await cli(work, ['rdap', 'status']);
    expect(code).toBe(0);
    expect(stdout).toContain(`${DEFAULT_BOOTSTRAP_FILE} (shipped): publication 2026-05-24T22:05:45Z, 605 services, 1175 TLDs`);
  });
});

describe('email-trust rdap refresh FILE', () => {
  it('--check validates and prints publication and counts, installing nothing', async () => {
    const good = file('check.json', ianaFile('2026-11-20T18:00:01Z', GOOD_SERVICES));
    const { code, stdout } = await cli(work, ['rdap', 'refresh', good, '--check']);
    expect(code).toBe(0);
    expect(stdout).toContain('valid; publication 2026-11-20T18:00:01Z, 5 services, 7 TLDs; 1 with an http URL only (kg)');
    expect(existsSync(join(work, 'data', 'rdap-dns.json'))).toBe(false);
  });

  it('installs the file byte for byte as data/rdap-dns.json, which status then names', async () => {
    const text = ianaFile('2026-11-20T18:00:01Z', GOOD_SERVICES);
    const { code, stdout } = await cli(work, ['rdap', 'refresh', file('dns.json', text)]);
    expect(code).toBe(0);
    const installed = join(work, 'data', 'rdap-dns.json');
    expect(stdout).toContain(`installed ${installed}: publication 2026-11-20T18:00:01Z, 5 services, 7 TLDs`);
    expect(stdout).toContain('restart');
    expect(readFileSync(installed, 'utf8')).toBe(text);
    expect((await cli(work, ['rdap', 'status'])).stdout).toContain(`${installed} (installed): publication 2026-11-20T18:00:01Z`);
    expect(installedBootstrapFile(work)).toBe(installed);
    expect(defaultBootstrapFile(work)).toBe(installed);
    expect(defaultBootstrapFile(dir)).toBe(DEFAULT_BOOTSTRAP_FILE);
  });

  it('refuses to replace a later publication with an earlier one unless --force', async () => {
    const older = file('older.json', ianaFile('2026-01-02T03:04:05Z', GOOD_SERVICES));
    const refused = await cli(work, ['rdap', 'refresh', older]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/holds a newer file \(publication 2026-11-20T18:00:01Z\).*--force/);
    expect(readFileSync(join(work, 'data', 'rdap-dns.json'), 'utf8')).toContain('2026-11-20T18:00:01Z');
    const forced = await cli(work, ['rdap', 'refresh', older, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(work, 'data', 'rdap-dns.json'), 'utf8')).toContain('2026-01-02T03:04:05Z');
  });

  it('writes to RDAP_BOOTSTRAP_FILE when it is set, and to --out when given', async () => {
    const configured = join(dir, 'configured.json');
    const good = file('for-env.json', ianaFile('2026-11-21T00:00:00Z', GOOD_SERVICES));
    const viaEnv = await cli(work, ['rdap', 'refresh', good], configured);
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toContain(`installed ${configured}:`);
    expect((await cli(work, ['rdap', 'status'], configured)).stdout).toContain(`${configured} (RDAP_BOOTSTRAP_FILE): publication 2026-11-21T00:00:00Z`);
    const out = join(dir, 'elsewhere', 'dns.json');
    expect((await cli(work, ['rdap', 'refresh', good, '--out', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('2026-11-21T00:00:00Z');
  });

  // Each bad file: refused with a message naming the problem (in-process, as the command checks it);
  // two of them through the command: exit 2, the file named, the installed file untouched.
  const BAD: { name: string; text: string; problem: RegExp }[] = [
    { name: 'a bare services array (not the IANA file)', text: JSON.stringify(GOOD_SERVICES), problem: /not a JSON object/ },
    {
      name: 'no version',
      text: JSON.stringify({ publication: '2026-11-20T18:00:01Z', services: GOOD_SERVICES }),
      problem: /"version" is undefined, not "1.0"/,
    },
    { name: 'another version', text: ianaFile('2026-11-20T18:00:01Z', GOOD_SERVICES).replace('"1.0"', '"2.0"'), problem: /"version" is "2.0"/ },
    { name: 'no publication', text: JSON.stringify({ version: '1.0', services: GOOD_SERVICES }), problem: /"publication" is undefined, not an RFC 3339 date/ },
    { name: 'a publication that is not a date', text: ianaFile('yesterday', GOOD_SERVICES), problem: /"publication" is "yesterday"/ },
    { name: 'a publication on no calendar day', text: ianaFile('2026-02-31T00:00:00Z', GOOD_SERVICES), problem: /"publication" is "2026-02-31/ },
    { name: 'no services', text: ianaFile('2026-11-20T18:00:01Z', []), problem: /"services" is not a non-empty array/ },
    {
      name: 'a service that is not a pair',
      text: ianaFile('2026-11-20T18:00:01Z', [[['com'], ['https://a.example/'], []]]),
      problem: /services\[0\] is not \[\[names\], \[base URLs\]\]/,
    },
    { name: 'a service without URLs', text: ianaFile('2026-11-20T18:00:01Z', [[['com'], []]]), problem: /services\[0\] lists no base URL/ },
    { name: 'a service without names', text: ianaFile('2026-11-20T18:00:01Z', [[[], ['https://a.example/']]]), problem: /services\[0\] lists no name/ },
    {
      name: 'a TLD listed twice (any case)',
      text: ianaFile('2026-11-20T18:00:01Z', [
        [['com', 'net'], ['https://a.example/']],
        [['org', 'NET'], ['https://b.example/']],
      ]),
      problem: /services\[1\]: "net" is listed twice \(also in services\[0\]\)/,
    },
    {
      name: 'a Unicode TLD (A-labels only)',
      text: ianaFile('2026-11-20T18:00:01Z', [[['рф'], ['https://a.example/']]]),
      problem: /"рф" is not a DNS name in ASCII/,
    },
    { name: 'a name with a space', text: ianaFile('2026-11-20T18:00:01Z', [[['co m'], ['https://a.example/']]]), problem: /"co m" is not a DNS name/ },
    {
      name: 'an ftp URL',
      text: ianaFile('2026-11-20T18:00:01Z', [[['com'], ['ftp://rdap.example/']]]),
      problem: /"ftp:\/\/rdap.example\/" is not an https \(or http\) URL/,
    },
    { name: 'a relative URL', text: ianaFile('2026-11-20T18:00:01Z', [[['com'], ['rdap/']]]), problem: /"rdap\/" is not an https/ },
    {
      name: 'a URL with credentials',
      text: ianaFile('2026-11-20T18:00:01Z', [[['com'], ['https://u:p@rdap.example/']]]),
      problem: /carries credentials, a query or a fragment/,
    },
  ];
  for (const bad of BAD) {
    it(`refuses ${bad.name}`, () => {
      expect(() => checkBootstrap(JSON.parse(bad.text))).toThrow(BootstrapFileError);
      expect(() => checkBootstrap(JSON.parse(bad.text))).toThrow(bad.problem);
    });
  }
  const THROUGH_THE_COMMAND: { name: string; text: string; problem: RegExp }[] = [
    { name: 'not JSON', text: '{"services": [', problem: /is not JSON/ },
    {
      name: 'a TLD listed twice',
      text: BAD.find((b) => b.name.startsWith('a TLD listed twice'))?.text ?? '',
      problem: /is not an RDAP bootstrap file \(RFC 9224\): services\[1\]: "net" is listed twice/,
    },
  ];
  for (const bad of THROUGH_THE_COMMAND) {
    it(`the command refuses ${bad.name}: exit 2, the file and the problem named, nothing installed`, () => {
      const before = readFileSync(join(work, 'data', 'rdap-dns.json'), 'utf8');
      const path = file(`bad-${THROUGH_THE_COMMAND.indexOf(bad)}.json`, bad.text);
      const { code, stdout, stderr } = bin(work, ['rdap', 'refresh', path]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(path);
      expect(stderr).toMatch(bad.problem);
      expect(readFileSync(join(work, 'data', 'rdap-dns.json'), 'utf8')).toBe(before);
    });
  }

  it('accepts http-only and mixed services, and names the ones without https', () => {
    expect(checkBootstrap(JSON.parse(ianaFile('2026-11-20T18:00:01+01:00', GOOD_SERVICES)))).toEqual({
      publication: '2026-11-20T18:00:01+01:00',
      description: 'RDAP bootstrap file for Domain Name System registrations',
      services: 5,
      entries: 7,
      httpOnly: ['kg'],
    });
  });

  it('refuses a missing file and a folder, naming them', async () => {
    const missing = await cli(work, ['rdap', 'refresh', join(dir, 'absent.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*absent\.json \(ENOENT\)/);
    const folder = await cli(work, ['rdap', 'refresh', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('is not a file');
  });

  it('accepts the shipped copy, the IANA file as freewhois kept it', () => {
    expect(checkBootstrap(JSON.parse(readFileSync(DEFAULT_BOOTSTRAP_FILE, 'utf8')))).toMatchObject({
      publication: '2026-05-24T22:05:45Z',
      services: 605,
      entries: 1175,
    });
  });
});

describe('the service reads the installed file', () => {
  let server: Server;
  let origin: string;
  const cwd = process.cwd();
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/installed/domain/old.test') {
        res.writeHead(200, { 'content-type': 'application/rdap+json' });
        res.end(JSON.stringify({ objectClassName: 'domain', events: [{ eventAction: 'registration', eventDate: '2001-02-03T04:05:06Z' }] }));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    process.chdir(cwd);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('without RDAP_BOOTSTRAP_FILE, a lookup goes to the server the installed data/rdap-dns.json names', async () => {
    const folder = join(dir, 'reads');
    mkdirSync(folder);
    const source = file('local.json', ianaFile('2026-11-22T00:00:00Z', [[['test'], [`${origin}/installed/`]]]));
    expect((await cli(folder, ['rdap', 'refresh', source])).code).toBe(0);
    process.chdir(folder);
    const lookup = createRegistrationLookup({ allowLoopbackForTests: true });
    const answer = await lookup.forRequest({ persist: false, signal: AbortSignal.timeout(5_000) }).registered('old.test');
    expect(answer).toEqual({ status: 'ok', value: Date.parse('2001-02-03T04:05:06Z') });
  });
});
