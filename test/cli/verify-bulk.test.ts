// `email-trust verify --file … --out …` on real files in a temporary folder, run through the CLI's main() in
// this process and, for a run interrupted by Ctrl-C and the runs with network checks on, as the built CLI:
// the rows a user finds in the result file, the bad lines named with their line numbers, the summary,
// resuming after Ctrl-C and after a kill in the middle of a row, and that no event is stored.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { runCli } from '../support/cli-run.js';
import { startDnsServer } from '../support/dns-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(root, 'bin/email-trust.js');
let dir: string;
let databaseUrl: string;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function env(): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: databaseUrl, NETWORK_CHECKS: 'off', LOG_LEVEL: 'silent' };
}

/**
 * A command run in this process (test/support/cli-run.ts), in the test's folder with env(): the same main()
 * the built CLI runs, without starting node anew. The interrupted run and the network checks start the
 * built CLI itself.
 */
async function cli(...args: string[]): Promise<Run> {
  const saved = { ...process.env };
  const cwd = process.cwd();
  Object.assign(process.env, env());
  process.chdir(dir);
  try {
    return await runCli(...args);
  } finally {
    process.chdir(cwd);
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

const verify = (...args: string[]): Promise<Run> => cli('verify', ...args);

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

function csvOut(name: string): Record<string, string>[] {
  return parse(readFileSync(join(dir, name), 'utf8'), { columns: true }) as Record<string, string>[];
}

function jsonOut(name: string): Record<string, unknown>[] {
  return readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The summary's count for one action ("  block  2  40.0%"). */
function summaryCount(out: string, action: string): number | null {
  const line = out.split('\n').find((l) => l.trimStart().startsWith(`${action}  `));
  return line ? Number((line.trim().slice(action.length).trim().split(/\s+/)[0] ?? '').replace(/,/g, '')) : null;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'et-bulk-'));
  databaseUrl = `sqlite://${join(dir, 'trust.sqlite')}`;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a CSV list', () => {
  // A BOM, CRLF line ends, quoted fields holding commas, quotes and a line break, the address in a column
  // named "mail", an input column named like a result column, a record with too many fields, an empty address.
  const csv = [
    '\uFEFFname,mail,action',
    '"Doe, Jane",jane.doe@example.com,keep',
    '"Bob ""the builder""",bob@mailinator.com,keep',
    'Typo,jane@outlool.com,keep',
    '"Multi',
    'line",support@example.com,keep',
    'Broken,a@example.com,x,y',
    'Nobody,,keep',
    'Bad,jane.doe@@example.com,keep',
    '',
  ].join('\r\n');

  let r: Run;
  beforeAll(async () => {
    r = await verify('--file', file('list.csv', csv), '--column', 'mail', '--out', 'result.csv');
  });

  it('writes one row per record, in input order, with the input columns, the line and the verdict', async () => {
    expect(r.code).toBe(0);
    const rows = csvOut('result.csv');
    expect(rows.map((row) => [row.line, row.name, row.mail, row.input_action, row.action])).toEqual([
      ['2', 'Doe, Jane', 'jane.doe@example.com', 'keep', 'allow'],
      ['3', 'Bob "the builder"', 'bob@mailinator.com', 'keep', 'block'],
      ['4', 'Typo', 'jane@outlool.com', 'keep', 'allow'],
      ['5', 'Multi\r\nline', 'support@example.com', 'keep', 'allow_with_review'],
      ['7', 'Broken', 'a@example.com', 'x', ''],
      ['8', 'Nobody', '', 'keep', ''],
      ['9', 'Bad', 'jane.doe@@example.com', 'keep', 'block'],
    ]);
    const [ok, disposable, typo, role, broken, empty, malformed] = rows as Record<string, string>[];
    expect(ok).toMatchObject({ errors: '', warnings: '', corrected_email: '', input_error: '' });
    expect(disposable?.errors).toBe('domain_is_disposable');
    expect(disposable?.is_disposable_domain).toBe('true');
    expect(typo).toMatchObject({ warnings: 'domain_typo_detected', corrected_email: 'jane@outlook.com' });
    expect(role).toMatchObject({ warnings: 'local_is_role_based', is_role_based_domain: 'true' });
    expect(broken?.input_error).toMatch(/^malformed CSV line/);
    expect(empty?.input_error).toBe('no address');
    expect(malformed?.errors).toContain('invalid_address_format');
    expect(Number(ok?.risk_score)).toBeGreaterThanOrEqual(0);
  });

  it('names each bad line with its line number on stderr, and the run still ends well', () => {
    expect(r.code).toBe(0);
    expect(r.err).toContain('list.csv:7: malformed CSV line');
    expect(r.err).toContain('list.csv:8: no address');
    expect(r.err).not.toContain('list.csv:9');
  });

  it('prints a summary by action that adds up to the rows', () => {
    expect(r.out).toMatch(/^7 rows in result\.csv \(policy default/);
    expect([summaryCount(r.out, 'allow'), summaryCount(r.out, 'block'), summaryCount(r.out, 'allow_with_review'), summaryCount(r.out, 'bad input')]).toEqual([
      2, 2, 1, 2,
    ]);
  });

  it('refuses a list without the named column, listing the columns it has', async () => {
    const refused = await verify('--file', 'list.csv', '--out', 'none.csv');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('no column "email" in the header (columns: name, mail, action)');
    expect(existsSync(join(dir, 'none.csv'))).toBe(false);
  });

  it('takes a policy file: the same list decided by another policy', async () => {
    const policy = file('lenient.yaml', 'version: "1.0"\ndefault_action: allow\nchecks:\n  structure: { mode: hard, action: quarantine }\n');
    expect((await verify('--file', 'list.csv', '--column', 'mail', '--policy', policy, '--out', 'lenient.csv')).code).toBe(0);
    expect(csvOut('lenient.csv').map((row) => row.action)).toEqual(['allow', 'allow', 'allow', 'allow', '', '', 'quarantine']);
  });
});

describe('a quote never closed', () => {
  // Line 4 opens a quote that nothing closes: csv-parse reads lines 4–7 as one field, records C and D in it.
  const csv = ['name,email', 'A,a@example.com', '', '"B,b@example.com', 'C,c@example.com', '', 'D,d@example.com', ''].join('\n');

  it('is reported on its own line with the lines it spans and the records it swallowed, and the counts add up', async () => {
    const r = await verify('--file', file('unclosed.csv', csv), '--out', 'unclosed.out.csv');
    expect(r.code).toBe(0);
    const rows = csvOut('unclosed.out.csv');
    expect(rows.map((row) => [row.line, row.email, row.action])).toEqual([
      ['2', 'a@example.com', 'allow'],
      ['4', '', ''],
    ]);
    const reason =
      'malformed CSV line: a quote opened on this line is never closed: lines 4–7, to the end of the file, were read as one field, swallowing the 2 records after it (not verified, no row)';
    expect(rows[1]?.input_error).toBe(reason);
    expect(r.err).toContain(`unclosed.csv:4: ${reason}`);
    // Every record of the file is accounted for: 4 = 1 + 1 + 2, the summary's rows being the first two.
    expect(r.out).toMatch(/^2 rows in unclosed\.out\.csv /);
    expect([summaryCount(r.out, 'allow'), summaryCount(r.out, 'bad input')]).toEqual([1, 1]);
    expect(r.out).toContain(
      'unclosed.csv: 4 records = 1 verified + 1 bad input + 2 swallowed by the quote opened on line 4 and never closed (lines 4–7, no rows); close it, then run again with --restart',
    );
    const again = await verify('--file', 'unclosed.csv', '--out', 'unclosed.out.csv');
    expect(again.code).toBe(0);
    expect(again.err).toContain('continuing unclosed.out.csv: 2 rows already done (up to line 4 of unclosed.csv)');
    expect(again.out).toContain('unclosed.csv: 4 records = 1 verified + 1 bad input + 2 swallowed');
  });

  it('a quote closed lines later, leaving a record of the wrong width: its row names the lines it spans', async () => {
    const r = await verify(
      '--file',
      file('late.csv', 'name,email\nA,a@example.com\n"B,b@example.com\nC,"c@example.com\nD,d@example.com\n'),
      '--out',
      'late.out.csv',
    );
    expect(r.code).toBe(0);
    expect(csvOut('late.out.csv').map((row) => [row.line, row.action, row.input_error])).toEqual([
      ['2', 'allow', ''],
      ['3', '', 'malformed CSV line: 1 fields where the header has 2 (the record spans lines 3–4: a quote in it may be misplaced)'],
      ['5', 'allow', ''],
    ]);
  });
});

describe('cells a spreadsheet would run as formulas', () => {
  // A header, input cells and addresses (so corrected_email too) starting with =, +, -, @, a tab and a carriage return.
  const csv = [
    '=cmd,email,note',
    '"=HYPERLINK(""http://evil.example"",""click"")",=1+1@gmial.com,+1 555 0100',
    '@SUM(1),jane@example.com,-2+3',
    '"\ttab",bob@example.com,"\rcr"',
    'plain,-x@gmial.com,ok',
    '',
  ].join('\n');

  it("writes them to CSV behind a ' (OWASP), quoted where CSV needs it, and a CSV parser reads them back as text", async () => {
    const r = await verify('--file', file('formulas.csv', csv), '--out', 'formulas.csv.out.csv');
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, 'formulas.csv.out.csv'), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^'=cmd,email,note,line,action,/);
    const rows = parse(text) as string[][];
    const header = rows[0] as string[];
    const column = (name: string) => rows.slice(1).map((row) => row[header.indexOf(name)]);
    expect(header.slice(0, 4)).toEqual(["'=cmd", 'email', 'note', 'line']);
    expect(column("'=cmd")).toEqual([`'=HYPERLINK("http://evil.example","click")`, "'@SUM(1)", "'\ttab", 'plain']);
    expect(column('email')).toEqual(["'=1+1@gmial.com", 'jane@example.com', 'bob@example.com', "'-x@gmial.com"]);
    expect(column('note')).toEqual(["'+1 555 0100", "'-2+3", "'\rcr", 'ok']);
    expect(column('corrected_email')).toEqual(["'=1+1@gmail.com", '', '', "'-x@gmail.com"]);
    // What the service wrote itself is left as it is.
    expect(column('action').every((action) => /^[a-z_]+$/.test(action ?? ''))).toBe(true);
    expect(column('risk_score').every((score) => /^\d+$/.test(score ?? ''))).toBe(true);
    // The escaped header is this run's own: the same command continues the file.
    const again = await verify('--file', 'formulas.csv', '--out', 'formulas.csv.out.csv');
    expect(again.code).toBe(0);
    expect(again.err).toContain('continuing formulas.csv.out.csv: 4 rows already done');
    expect(readFileSync(join(dir, 'formulas.csv.out.csv'), 'utf8')).toBe(text);
  });

  it('leaves them raw in JSON Lines, which no spreadsheet runs', async () => {
    expect((await verify('--file', 'formulas.csv', '--out', 'formulas.jsonl')).code).toBe(0);
    const rows = jsonOut('formulas.jsonl');
    expect(rows.map((row) => [row['=cmd'], row.email, row.note])).toEqual([
      ['=HYPERLINK("http://evil.example","click")', '=1+1@gmial.com', '+1 555 0100'],
      ['@SUM(1)', 'jane@example.com', '-2+3'],
      ['\ttab', 'bob@example.com', '\rcr'],
      ['plain', '-x@gmial.com', 'ok'],
    ]);
    expect(rows[0]?.corrected_email).toBe('=1+1@gmail.com');
  });
});

describe('a text list to JSON Lines', () => {
  it('reads one address per line (BOM stripped, blank lines skipped) and writes the response fields', async () => {
    file('list.txt', '\uFEFFjane.doe@example.com\n\n  bob@mailinator.com  \njane@outlool.com\n');
    const r = await verify('--file', 'list.txt', '--out', 'result.jsonl');
    expect(r.code).toBe(0);
    const rows = jsonOut('result.jsonl');
    expect(rows.map((row) => [row.line, row.email, row.action])).toEqual([
      [1, 'jane.doe@example.com', 'allow'],
      [3, '  bob@mailinator.com  ', 'block'],
      [4, 'jane@outlool.com', 'allow'],
    ]);
    expect(rows[1]).toMatchObject({ errors: ['domain_is_disposable'], is_disposable_domain: true });
    expect(rows[2]).toMatchObject({ warnings: ['domain_typo_detected'], corrected_email: 'jane@outlook.com' });
    expect(rows[0]?.analyzed_data).toBeTypeOf('object');
  });
});

describe('resuming', () => {
  const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@${i % 10 === 0 ? 'mailinator.com' : 'example.com'}`);

  it('after Ctrl-C: what was done is written, and the same command continues where it stopped', async () => {
    const n = 3_000;
    file('big.txt', `${addresses(n).join('\n')}\n`);
    const child = spawn(process.execPath, [BIN, 'verify', '--file', 'big.txt', '--out', 'big.csv', '--concurrency', '8'], { cwd: dir, env: env() });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const out = join(dir, 'big.csv');
    while (!existsSync(out) || statSync(out).size < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('run the same command again to continue');
    const partial = csvOut('big.csv');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(n);
    expect(partial.map((row) => Number(row.line))).toEqual(partial.map((_, i) => i + 1));

    const r = await verify('--file', 'big.txt', '--out', 'big.csv');
    expect(r.code).toBe(0);
    expect(r.err).toContain(`continuing big.csv: ${partial.length.toLocaleString('en-US')} rows already done`);
    const rows = csvOut('big.csv');
    expect(rows.map((row) => Number(row.line))).toEqual(rows.map((_, i) => i + 1));
    expect(rows.map((row) => row.email)).toEqual(addresses(n));
    expect([summaryCount(r.out, 'allow'), summaryCount(r.out, 'block')]).toEqual([n - n / 10, n / 10]);
  }, 180_000);

  it('after a kill in the middle of a row: the cut row is dropped and done again', async () => {
    file('five.txt', `${addresses(5).join('\n')}\n`);
    expect((await verify('--file', 'five.txt', '--out', 'five.jsonl')).code).toBe(0);
    const whole = readFileSync(join(dir, 'five.jsonl'), 'utf8');
    const lines = whole.split('\n');
    writeFileSync(join(dir, 'five.jsonl'), `${lines.slice(0, 2).join('\n')}\n${(lines[2] ?? '').slice(0, 15)}`);
    const r = await verify('--file', 'five.txt', '--out', 'five.jsonl');
    expect(r.code).toBe(0);
    expect(r.err).toContain('continuing five.jsonl: 2 rows already done');
    expect(readFileSync(join(dir, 'five.jsonl'), 'utf8')).toBe(whole);
    expect(summaryCount(r.out, 'allow')).toBe(4);
  });

  it('refuses to continue a result file written for another list, and --restart overwrites it', async () => {
    file('other.txt', 'someone@example.com\nelse@example.com\nthird@example.com\n');
    const r = await verify('--file', 'other.txt', '--out', 'five.jsonl');
    expect(r.code).toBe(2);
    expect(r.err).toContain('written for another list');
    const restarted = await verify('--file', 'other.txt', '--out', 'five.jsonl', '--restart');
    expect(restarted.code).toBe(0);
    expect(jsonOut('five.jsonl').map((row) => row.email)).toEqual(['someone@example.com', 'else@example.com', 'third@example.com']);
  });
});

describe('a project', () => {
  it("uses the project's policy and lists, and stores no event", async () => {
    const store = await openDatabase(databaseUrl);
    try {
      await store.migrate();
      await createProjectWithKeys(store, { name: 'shop', sandbox: false, policy: 'default' });
    } finally {
      await store.close();
    }
    file('shop.txt', 'jane.doe@example.com\nbob@mailinator.com\n');
    expect((await cli('project', 'lists', 'add', 'shop', 'known-abuse', 'example.com')).code).toBe(0);
    const r = await verify('--file', 'shop.txt', '--project', 'shop', '--out', 'shop.jsonl');
    expect(r.code).toBe(0);
    expect(r.err.split('\n')[0]).toBe(`using ${databaseUrl}`);
    const rows = jsonOut('shop.jsonl');
    expect(rows.map((row) => row.action)).toEqual(['block', 'block']);
    expect(rows[0]).toMatchObject({ is_known_abuse_domain: true });
    const after = await openDatabase(databaseUrl);
    try {
      expect(await after.knex('events').count({ n: '*' })).toEqual([{ n: 0 }]);
    } finally {
      await after.close();
    }
  });
});

describe('network checks on, through a resolver that answers NXDOMAIN for every name', () => {
  it('warns before the first row, blocks nothing for a missing MX, and says how many domains failed DNS', async () => {
    const dns = await startDnsServer({});
    try {
      const policy = file('lying.yaml', 'version: "1.0"\ndefault_action: allow\nchecks:\n  mx_record: { mode: hard, action: block }\n');
      file('lying.txt', 'a@gmail.com\nb@gmail.com\nc@outlook.com\nd@nx.test\n');
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, 'verify', '--file', 'lying.txt', '--policy', policy, '--out', 'lying.csv'], {
        cwd: dir,
        env: {
          ...env(),
          LOG_LEVEL: 'info',
          NETWORK_CHECKS: 'on',
          DNS_SERVERS: dns.server,
          DNS_CANARIES: 'gmail.com,outlook.com',
          DNS_TIMEOUT_MS: '500',
          DNS_TRIES: '1',
          WEB_CHECKS: 'off',
        },
      });
      expect(stderr).toContain('DNS self-check failed: domains that must exist do not resolve');
      expect(stderr).toContain('gmail.com: nxdomain, outlook.com: nxdomain');
      expect(csvOut('lying.csv').map((row) => [row.email, row.action, row.errors])).toEqual([
        ['a@gmail.com', 'allow', ''],
        ['b@gmail.com', 'allow', ''],
        ['c@outlook.com', 'allow', ''],
        ['d@nx.test', 'allow', ''],
      ]);
      expect(stdout).toContain('DNS failed for 3 distinct domains (the resolvers fail their self-check: see the warning above)');
      // Nothing but the canaries was asked.
      expect(dns.questions.every((q) => ['gmail.com', 'outlook.com'].includes(q.name))).toBe(true);
    } finally {
      await dns.close();
    }
  });
});

describe('network checks on', () => {
  it('looks each domain up once for the whole list (its answer shared by every row), and decides on it', async () => {
    const dns = await startDnsServer();
    try {
      const policy = file('mx.yaml', 'version: "1.0"\ndefault_action: allow\nchecks:\n  mx_record: { mode: hard, action: block }\n');
      file('mx.txt', 'a@mx.test\nb@mx.test\nc@mx.test\nd@nx.test\n');
      // Asynchronous: the DNS server answers from this process while the command runs.
      const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'verify', '--file', 'mx.txt', '--policy', policy, '--out', 'mx.csv'], {
        cwd: dir,
        env: {
          ...env(),
          NETWORK_CHECKS: 'on',
          DNS_SERVERS: dns.server,
          DNS_CANARIES: 'canary.test',
          DNS_TIMEOUT_MS: '2000',
          DNS_TRIES: '1',
          NETWORK_BUDGET_MS: '5000',
          WEB_CHECKS: 'off',
        },
      });
      expect(csvOut('mx.csv').map((row) => [row.email, row.action, row.errors])).toEqual([
        ['a@mx.test', 'allow', ''],
        ['b@mx.test', 'allow', ''],
        ['c@mx.test', 'allow', ''],
        ['d@nx.test', 'block', 'no_mx_records'],
      ]);
      expect(dns.count('mx.test', 'MX')).toBe(1);
      expect(stdout).not.toContain('network checks off');
    } finally {
      await dns.close();
    }
  }, 60_000);

  it('says where it caches the answers: the database it names (a later run asks nothing), or memory for the run only', async () => {
    const dns = await startDnsServer();
    const policy = file('mx.yaml', 'version: "1.0"\ndefault_action: allow\nchecks:\n  mx_record: { mode: hard, action: block }\n');
    const networkOn = {
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: dns.server,
      DNS_CANARIES: 'canary.test',
      DNS_TIMEOUT_MS: '2000',
      DNS_TRIES: '1',
      NETWORK_BUDGET_MS: '5000',
      WEB_CHECKS: 'off',
    };
    const verifyOnce = (databaseUrl: string) =>
      promisify(execFile)(
        process.execPath,
        [BIN, 'verify', '--file', file('cache.txt', 'a@multi.test\n'), '--policy', policy, '--out', 'cache.csv', '--restart'],
        {
          cwd: dir,
          env: { ...env(), ...networkOn, DATABASE_URL: databaseUrl },
        },
      );
    try {
      const stored = await verifyOnce(databaseUrl);
      expect(stored.stderr.split('\n').slice(0, 2)).toEqual([
        `using ${databaseUrl}`,
        'cache: DNS, registration and website answers are kept in its domain_facts table, shared with the service and with later runs (DATABASE_URL=sqlite::memory: keeps them in memory for this run only)',
      ]);
      expect(dns.count('multi.test', 'MX')).toBe(1);
      await verifyOnce(databaseUrl);
      expect(dns.count('multi.test', 'MX')).toBe(1);

      const memory = await verifyOnce('sqlite::memory:');
      expect(memory.stderr.split('\n').slice(0, 2)).toEqual([
        'using sqlite::memory:',
        'cache: DNS, registration and website answers are kept in memory for this run only',
      ]);
      expect(dns.count('multi.test', 'MX')).toBe(2);
    } finally {
      await dns.close();
    }
  }, 60_000);

  it('--help says where the cache is, and where a run stopped', async () => {
    const r = await verify('--help');
    expect(r.code).toBe(0);
    expect(r.out.replace(/\s+/g, ' ')).toContain(
      'Cache: with network checks on (NETWORK_CHECKS, default on), the DNS, registration and website answers are kept in the domain_facts table of DATABASE_URL (default sqlite:./data/email-trust.sqlite: a file under the current folder)',
    );
    expect(r.out).toContain('DATABASE_URL=sqlite::memory:');
    expect(r.out).toContain('Where a run stopped is the --out file itself');
  });

  it('with network checks off names no cache', async () => {
    const r = await verify('--file', file('offline.txt', 'a@example.com\n'), '--out', 'offline.csv');
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('cache:');
  });
});
