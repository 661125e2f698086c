// The `email-trust` command in-process, through main(argv): what a person at the terminal sees
// (stdout, stderr, exit code) and what lands in the database (DATABASE_URL, a temporary SQLite file).
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { type CliRun, runCli } from '../support/cli-run.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/policies/${name}.yaml`, import.meta.url));
const shippedPolicy = fileURLToPath(new URL('../../policies/default.yaml', import.meta.url));

const run = runCli;

const saved = { DATABASE_URL: process.env.DATABASE_URL, PORT: process.env.PORT };
let dir: string;
let databaseUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-cli-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  process.env.DATABASE_URL = databaseUrl;
  delete process.env.PORT;
});
afterEach(() => {
  process.env.DATABASE_URL = databaseUrl;
  delete process.env.PORT;
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(dir, { recursive: true, force: true });
});

async function withStore<T>(work: (store: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const store = await openDatabase(databaseUrl);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function createdJson(r: CliRun) {
  expect(r.code).toBe(0);
  const lines = r.out.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as {
    project: { id: string; name: string; sandbox: boolean; policy: string };
    keys: { access_token: string; private_key: string; public_key: string };
  };
}

describe('project create', () => {
  it('--name acme --json prints one JSON object: the project and its three keys', async () => {
    const r = await run('project', 'create', '--name', 'acme', '--json');
    const created = createdJson(r);
    expect(r.err).toBe(`using ${databaseUrl}\n`);
    expect(created.project).toEqual({ id: expect.stringMatching(/^prj_/), name: 'acme', sandbox: false, policy: 'default' });
    expect(created.keys.access_token).toMatch(/^etv_at_[A-Za-z0-9_-]{43}$/);
    expect(created.keys.private_key).toMatch(/^etv_sk_[A-Za-z0-9_-]{43}$/);
    expect(created.keys.public_key).toMatch(/^etv_pk_[A-Za-z0-9_-]{43}$/);
    const auth = await withStore((store) => store.keys.authenticate(created.keys.access_token, 'access_token'));
    expect(auth?.project.name).toBe('acme');
  });

  it('without --json prints the keys for a person, once', async () => {
    const r = await run('project', 'create', '--name', 'human', '--sandbox');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Created sandbox project "human"/);
    expect(r.out).toMatch(/access_token\s+etv_at_/);
    expect(r.out).toMatch(/private_key\s+etv_sk_/);
    expect(r.out).toMatch(/public_key\s+etv_pk_/);
  });

  it('refuses a duplicate name with a one-line reason', async () => {
    const r = await run('project', 'create', '--name', 'acme', '--json');
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toEqual([`using ${databaseUrl}`, expect.stringMatching(/acme.*already exists/)]);
  });

  it.each([['-starts-with-dash'], ['has space'], ['a'.repeat(65)], ['slash/name'], ['']])('refuses the name %j with exit 2', async (name) => {
    const r = await run('project', 'create', '--name', name);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/name/);
  });

  it('--policy <file> stores the file content with the project', async () => {
    const file = fixture('plus-soft');
    const created = createdJson(await run('project', 'create', '--name', 'from-file', '--policy', file, '--json'));
    expect(created.project.policy).toBe('plus-soft');
    const row = await withStore((store) => store.projects.getByName('from-file'));
    expect(row?.policySource).toBe(await readFile(file, 'utf8'));
  });

  it('--policy <name> of a shipped policy stores only the name', async () => {
    const created = createdJson(await run('project', 'create', '--name', 'by-name', '--policy', 'default', '--json'));
    expect(created.project.policy).toBe('default');
    expect((await withStore((store) => store.projects.getByName('by-name')))?.policySource).toBeNull();
  });

  it('--policy that is neither a policy nor a file exits 2', async () => {
    const r = await run('project', 'create', '--name', 'nowhere', '--policy', 'no-such-policy');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--policy.*no-such-policy/);
    expect(r.err).toContain('add no-such-policy.yaml to POLICIES_DIR (set it to your policies folder), or give the path of a policy file');
  });

  it('--policy <invalid file> exits 3, lists file:line:column, and creates nothing', async () => {
    const file = fixture('invalid-mode');
    const r = await run('project', 'create', '--name', 'invalid-policy', '--policy', file);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${resolve(file)}:6:23: /checks/local_plus/mode`);
    expect(await withStore((store) => store.projects.getByName('invalid-policy'))).toBeNull();
  });
});

describe('project list', () => {
  it('--json prints the projects as a JSON array', async () => {
    const r = await run('project', 'list', '--json');
    expect(r.code).toBe(0);
    const projects = JSON.parse(r.out) as Array<Record<string, unknown>>;
    const byName = new Map(projects.map((p) => [p.name, p]));
    expect(byName.get('acme')).toEqual({
      id: expect.stringMatching(/^prj_/),
      name: 'acme',
      sandbox: false,
      policy: 'default',
      policy_from_file: false,
      allowed_origins: [],
      monthly_quota: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(byName.get('human')).toMatchObject({ sandbox: true });
    expect(byName.get('from-file')).toMatchObject({ policy: 'plus-soft', policy_from_file: true });
    expect(byName.has('invalid-policy')).toBe(false);
  });

  it('prints one line per project without --json', async () => {
    const r = await run('project', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^prj_\S+ {2}acme {2}policy=default$/m);
    expect(r.out).toMatch(/human {2}\(sandbox\)/);
    expect(r.out).toMatch(/from-file .*\(from file\)/);
  });
});

describe('project update', () => {
  const policyOf = (name: string) => withStore((store) => store.projects.getByName(name));

  it('--policy <file> --json stores the file content and prints the project as project create does', async () => {
    const file = fixture('plus-hard');
    const r = await run('project', 'update', 'acme', '--policy', file, '--json');
    expect(r.code).toBe(0);
    expect(r.err).toBe(`using ${databaseUrl}\n`);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({ project: { id: expect.stringMatching(/^prj_/), name: 'acme', sandbox: false, policy: 'plus-hard' } });
    expect(await policyOf('acme')).toMatchObject({ policy: 'plus-hard', policySource: await readFile(file, 'utf8') });
  });

  it('--policy <name> takes a shipped policy by name and forgets the file content; a project id works too', async () => {
    const acme = await policyOf('acme');
    const r = await run('project', 'update', acme?.id ?? '', '--policy', 'default');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Updated project "acme" \(prj_\S+\): policy default; running services apply it within 5 seconds\.$/m);
    expect(await policyOf('acme')).toEqual({ ...acme, policy: 'default', policySource: null });
  });

  it('exits 2 for an unknown project, changing nothing', async () => {
    const r = await run('project', 'update', 'nobody', '--policy', 'default');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/no project named or with id "nobody"/);
  });

  it('exits 2 for a --policy that is neither a policy nor a file, and without --policy', async () => {
    const nowhere = await run('project', 'update', 'acme', '--policy', 'no-such-policy');
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toMatch(/--policy.*no-such-policy/);
    const missing = await run('project', 'update', 'acme');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--policy/);
  });

  it('--policy <invalid file> exits 3, lists file:line:column, and leaves the project as it was', async () => {
    const before = await policyOf('acme');
    const file = fixture('invalid-mode');
    const r = await run('project', 'update', 'acme', '--policy', file);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${resolve(file)}:6:23: /checks/local_plus/mode`);
    expect(await policyOf('acme')).toEqual(before);
  });
});

describe('keys', () => {
  let publicKey: { id: string; token: string };

  it('key create --project acme --kind public_key prints a new public key', async () => {
    const r = await run('key', 'create', '--project', 'acme', '--kind', 'public_key', '--json');
    expect(r.code).toBe(0);
    const created = JSON.parse(r.out) as { id: string; kind: string; project_id: string; token: string };
    expect(created).toEqual({
      id: expect.stringMatching(/^key_/),
      project_id: expect.stringMatching(/^prj_/),
      kind: 'public_key',
      hint: created.token.slice(0, 12),
      label: null,
      status: 'live',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      revoked_at: null,
      token: expect.stringMatching(/^etv_pk_/),
    });
    publicKey = created;
    const plain = await run('key', 'create', '--project', 'acme', '--kind', 'public_key');
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/created public_key key_\S+ \(shown once, keep it\):\n\s+etv_pk_\S+/);
  });

  it('key create takes a project id as well as a name', async () => {
    const [acme] = await withStore(async (store) => [await store.projects.getByName('acme')]);
    const r = await run('key', 'create', '--project', acme?.id ?? '', '--kind', 'access_token', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).project_id).toBe(acme?.id);
  });

  it.each([
    ['an unknown project', ['key', 'create', '--project', 'nobody', '--kind', 'public_key'], /nobody/],
    ['an unknown kind', ['key', 'create', '--project', 'acme', '--kind', 'secret'], /secret/],
    ['no --kind', ['key', 'create', '--project', 'acme'], /--kind/],
    ['no --project', ['key', 'list'], /--project/],
  ])('exits 2 for %s', async (_label, args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('key list shows hints, never tokens', async () => {
    const r = await run('key', 'list', '--project', 'acme');
    expect(r.code).toBe(0);
    expect(r.out).toContain(publicKey.id);
    expect(r.out).toContain(`${publicKey.token.slice(0, 12)}…`);
    expect(r.out).not.toContain(publicKey.token);
    expect(r.out).not.toMatch(/etv_(at|sk|pk)_[A-Za-z0-9_-]{20,}/);
    const json = await run('key', 'list', '--project', 'acme', '--json');
    const keys = JSON.parse(json.out) as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const key of keys) {
      expect(String(key.hint)).toHaveLength(12);
      expect(key).not.toHaveProperty('hash');
      expect(key).not.toHaveProperty('token');
    }
    expect(json.out).not.toContain(publicKey.token);
  });

  it('key revoke <id> makes the token stop authenticating, and says so in key list', async () => {
    expect(await withStore((store) => store.keys.authenticate(publicKey.token, 'public_key'))).not.toBeNull();
    const r = await run('key', 'revoke', publicKey.id);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`revoked ${publicKey.id}`);
    expect(await withStore((store) => store.keys.authenticate(publicKey.token, 'public_key'))).toBeNull();
    expect((await run('key', 'list', '--project', 'acme')).out).toMatch(new RegExp(`${publicKey.id} .*REVOKED`));
  });

  it('key revoke of an unknown or already revoked key exits 2', async () => {
    expect((await run('key', 'revoke', publicKey.id)).code).toBe(2);
    const r = await run('key', 'revoke', 'key_nope');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/key_nope/);
  });
});

describe('policy check', () => {
  it('exits 0 on the shipped policies (no arguments)', async () => {
    const r = await run('policy', 'check');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: \d+ policies in .*\(.*default.*\)/);
  });

  it('exits 0 on valid files, one ok line each', async () => {
    const r = await run('policy', 'check', shippedPolicy, fixture('plus-hard'), fixture('empty'));
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(3);
    expect(r.out).toMatch(/ok: .*plus-hard\.yaml \(1 checks, 1 rules, revision [0-9a-f]{16}\)/);
  });

  it.each([
    ['invalid-mode', ':6:23: /checks/local_plus/mode: must be one of: hard, soft'],
    ['unknown-check', ':5:18: /checks/no_such_check: unknown check "no_such_check"'],
  ])('exits 3 on %s, naming file, line and column', async (name, problem) => {
    const file = fixture(name);
    const r = await run('policy', 'check', fixture('plus-soft'), file);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/ok: .*plus-soft\.yaml/);
    expect(r.err).toContain(`${file}${problem}`);
    expect(r.err).toMatch(/invalid policy: 1 problem\(s\)/);
  });

  it('reports schema and semantic problems in one pass, each with the closest known name', async () => {
    const file = join(dir, 'three-problems.yaml');
    await writeFile(
      file,
      'version: "1.0"\nchecks:\n  structure: { mode: hardd, action: block }\n  disposible_domain: { mode: hard }\nrules:\n  - name: young\n    conditions: { all: [ { fact: domain_age_dayz, operator: lesThan, value: 30 } ] }\n    action: challenge\n',
    );
    const r = await run('policy', 'check', file);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${file}:3:22: /checks/structure/mode: must be one of: hard, soft; got "hardd"; did you mean "hard"?\n`);
    expect(r.err).toContain(`${file}:4:22: /checks/disposible_domain: unknown check "disposible_domain"; did you mean "disposable_domain"?\n`);
    expect(r.err).toContain(`${file}:7:34: /rules/0/conditions/all/0/fact: unknown fact "domain_age_dayz"; did you mean "domain_age_days"?\n`);
    expect(r.err).toMatch(/:7:61: \/rules\/0\/conditions\/all\/0\/operator: must be one of: .*; got "lesThan"; did you mean "lessThan"\?\n/);
    // A rule that can challenge must say why: refused, with a suggested code.
    expect(r.err).toContain(
      `${file}:8:13: /rules/0/action: rule "young" can decide challenge without a code, so an answer would not say why: add \`warning: rule_young\` (or a code of your own) to the rule\n`,
    );
    expect(r.err).toMatch(/invalid policy: 5 problem\(s\)/);
  });

  it('places a YAML syntax error at the unclosed bracket, in the same file:line:col form', async () => {
    const file = join(dir, 'unclosed.yaml');
    await writeFile(file, 'version: "1.0"\nchecks:\n  structure: { mode: hard, action: block\n  local_plus: { mode: soft }\n');
    const r = await run('policy', 'check', file);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${file}:3:14: /checks/structure: this { is never closed: end it with } (on this line, or indent the lines it continues on)\n`);
  });

  it('exits 2 for a file that does not exist', async () => {
    const r = await run('policy', 'check', join(dir, 'missing.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.yaml');
  });
});

describe('policy test', () => {
  it('runs the tests written in the shipped policies and passes', async () => {
    const r = await run('policy', 'test');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^PASS {2}default: /m);
    expect(r.out).toMatch(/\d+ passed, 0 failed\n$/);
  });

  it('runs tests that declare velocity history and network answers', async () => {
    const r = await run('policy', 'test', fixture('with-fixtures'));
    expect(r.code).toBe(0);
    expect(r.out).toContain('PASS  with-fixtures.yaml: a third address from one IP within half an hour is challenged\n');
    expect(r.out).toContain('PASS  with-fixtures.yaml: a domain with neither MX nor address is blocked\n');
    expect(r.out).toMatch(/9 passed, 0 failed\n$/);
  });

  it('exits 4 and says what differed when a test fails', async () => {
    const file = join(dir, 'failing.yaml');
    await writeFile(
      file,
      'version: "1"\nchecks:\n  local_plus: { mode: soft }\ntests:\n  - name: plus is an error\n    input: { email_address: a+b@example.com }\n    expected: { errors: [local_contains_plus_symbol], fired: [] }\n',
    );
    const r = await run('policy', 'test', file);
    expect(r.code).toBe(4);
    expect(r.out).toContain('FAIL  failing.yaml: plus is an error\n');
    expect(r.out).toContain('      errors: expected [local_contains_plus_symbol], got []\n');
    expect(r.out).toContain('      fired: expected [], got [local_plus]\n');
    // What fired and the facts its conditions saw, so the author sees why without running explain.
    expect(r.out).toContain('      why: allow is the most severe action that fired, from local_plus (severity: block > ');
    expect(r.out).toContain(
      '      [fired] local_plus  check, soft -> allow (local_contains_plus_symbol)\n          has_plus_addressing equal true: saw true, held\n',
    );
    expect(r.out).toMatch(/0 passed, 1 failed\n$/);
  });
});

describe('facts', () => {
  it('prints the catalogue docs/facts.md holds', async () => {
    const r = await run('facts');
    expect(r.code).toBe(0);
    expect(r.out).toBe(await readFile(fileURLToPath(new URL('../../docs/facts.md', import.meta.url)), 'utf8'));
  });

  it('--json prints the checks and facts for tools', async () => {
    const r = await run('facts', '--json');
    expect(r.code).toBe(0);
    const catalogue = JSON.parse(r.out) as { checks: Array<{ name: string; plugin: string }>; facts: Array<{ name: string; type: string }> };
    expect(catalogue.checks).toContainEqual(expect.objectContaining({ name: 'tld', plugin: 'tld', code: 'invalid_tld' }));
    expect(catalogue.facts).toContainEqual(expect.objectContaining({ name: 'mx_record_status', type: 'string', unknown_values: ['not_checked'] }));
  });
});

describe('project set-origins', () => {
  const originsOf = async (name: string) => (await withStore((store) => store.projects.getByName(name)))?.allowedOrigins;

  it('stores the origins as browsers send them, and project list shows them', async () => {
    const r = await run('project', 'set-origins', 'acme', 'https://Shop.Example', 'http://localhost:3000/', 'https://shop.example:443');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^Project "acme" \(prj_\S+\): browser pages on https:\/\/shop\.example, http:\/\/localhost:3000 may call POST \/v1\/fingerprint; running services apply it within 5 seconds\.$/m,
    );
    expect(await originsOf('acme')).toEqual(['https://shop.example', 'http://localhost:3000']);
    expect((await run('project', 'list')).out).toMatch(/ {2}acme {2}policy=\S+ {2}origins=https:\/\/shop\.example,http:\/\/localhost:3000$/m);
    const listed = JSON.parse((await run('project', 'list', '--json')).out) as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.name === 'acme')?.allowed_origins).toEqual(['https://shop.example', 'http://localhost:3000']);
  });

  it('--json prints the project and its origins; the list is replaced, not added to', async () => {
    const r = await run('project', 'set-origins', 'acme', 'https://other.example', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ project: expect.objectContaining({ name: 'acme' }), allowed_origins: ['https://other.example'] });
    expect(await originsOf('acme')).toEqual(['https://other.example']);
  });

  it.each([[['--none']], [[]]])('%j clears the list', async (args) => {
    await run('project', 'set-origins', 'acme', 'https://other.example');
    const r = await run('project', 'set-origins', 'acme', ...args);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/no browser page may call POST \/v1\/fingerprint/);
    expect(await originsOf('acme')).toEqual([]);
    expect((await run('project', 'list')).out).not.toMatch(/origins=/);
  });

  it.each([
    ['https://shop.example/checkout', /origin "https:\/\/shop\.example\/checkout" is not an origin \(no path, query, fragment or user\)/],
    ['https://shop.example?x=1', /no path, query, fragment or user/],
    ['https://user@shop.example', /no path, query, fragment or user/],
    ['ftp://shop.example', /the scheme must be http or https, not ftp/],
    ['shop.example', /"shop\.example" is not an origin: expected scheme:\/\/host/],
    ['*', /"\*" is not an origin/],
    ['https://*.shop.example', /wildcards are not allowed/],
    ['https://shop.example:99999', /is not an origin/],
    [`https://${'a'.repeat(300)}.example`, /longer than 300 characters/],
  ])('exits 2 for %j, naming what is wrong, and changes nothing', async (origin, message) => {
    await run('project', 'set-origins', 'acme', 'https://kept.example');
    const r = await run('project', 'set-origins', 'acme', 'https://fine.example', origin);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(await originsOf('acme')).toEqual(['https://kept.example']);
  });

  it('exits 2 for more than 20 origins, for --none with origins, and for an unknown project', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `https://shop${i}.example`);
    expect((await run('project', 'set-origins', 'acme', ...many)).err).toMatch(/at most 20 origins, not 21/);
    expect(await run('project', 'set-origins', 'acme', ...many.slice(0, 20))).toMatchObject({ code: 0 });
    expect((await run('project', 'set-origins', 'acme', '--none', 'https://a.example')).err).toMatch(/either --none or origins/);
    const nobody = await run('project', 'set-origins', 'nobody', 'https://a.example');
    expect(nobody.code).toBe(2);
    expect(nobody.err).toMatch(/no project named or with id "nobody"/);
  });
});

describe('usage and configuration', () => {
  it.each([[['bogus']], [['project', 'bogus']], [['project', 'create']], [['key', 'revoke']], [['project', 'list', '--unknown-option']]])(
    'exits 2 for %j',
    async (args) => {
      const r = await run(...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/error: /);
      expect(r.err).toMatch(/--help/);
    },
  );

  it.each([
    [[], 'email-trust [options] [command]'],
    [['serve'], 'email-trust serve'],
    [['migrate'], 'email-trust migrate'],
    [['project'], 'email-trust project'],
    [['project', 'create'], 'email-trust project create'],
    [['project', 'list'], 'email-trust project list'],
    [['project', 'update'], 'email-trust project update'],
    [['project', 'set-origins'], 'email-trust project set-origins'],
    [['key'], 'email-trust key'],
    [['key', 'create'], 'email-trust key create'],
    [['key', 'list'], 'email-trust key list'],
    [['key', 'revoke'], 'email-trust key revoke'],
    [['policy'], 'email-trust policy'],
    [['policy', 'check'], 'email-trust policy check'],
  ])('%j --help exits 0 and prints usage', async (args, usage) => {
    const r = await run(...args, '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: ${usage}`);
  });

  it('migrate brings the database up to date', async () => {
    const r = await run('migrate');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/is up to date/);
  });

  it('serve with PORT=abc exits 2 naming PORT, before opening anything', async () => {
    process.env.PORT = 'abc';
    const r = await run('serve');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^configuration error: PORT: "abc" is not a whole number/);
  });

  it('serve refuses to start on an invalid policy in POLICIES_DIR: exit 3 with file, line and column', async () => {
    const policies = join(dir, 'policies-invalid');
    await mkdir(policies);
    await copyFile(fixture('invalid-mode'), join(policies, 'broken.yaml'));
    await copyFile(shippedPolicy, join(policies, 'default.yaml'));
    process.env.POLICIES_DIR = policies;
    try {
      const r = await run('serve');
      expect(r.code).toBe(3);
      expect(r.err).toContain(`${join(policies, 'broken.yaml')}:6:23: /checks/local_plus/mode: must be one of: hard, soft`);
      expect(r.err).toMatch(/invalid policy: 1 problem/);
    } finally {
      delete process.env.POLICIES_DIR;
    }
  });

  it('POLICIES_DIR that is not a folder exits 2 naming POLICIES_DIR', async () => {
    process.env.POLICIES_DIR = join(dir, 'no-such-folder');
    try {
      const r = await run('serve');
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^configuration error: POLICIES_DIR: .* is not a folder/);
    } finally {
      delete process.env.POLICIES_DIR;
    }
  });

  it('a DATABASE_URL of an unknown kind exits 2 naming DATABASE_URL', async () => {
    process.env.DATABASE_URL = 'mysql://localhost/db';
    const r = await run('project', 'list');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/DATABASE_URL/);
  });
});

describe('events generate', () => {
  it('writes N events through the store (rows and velocity counters), spread over the past, distinct addresses', async () => {
    const created = createdJson(await run('project', 'create', '--name', 'gen2', '--json'));
    const before = Date.now();
    const r = await run(
      'events',
      'generate',
      '--count',
      '250',
      '--ipv4',
      '203.0.113.250',
      '--ipv6',
      '2001:DB8::250',
      '--device',
      'dev_cli',
      '--project',
      'gen2',
      '--spread',
      '30',
    );
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^generated 250 events for project gen2 in [\d.]+ s/);
    await withStore(async (store) => {
      const rows = await store.knex('events').where({ project_id: created.project.id }).orderBy('created_at');
      expect(rows).toHaveLength(250);
      expect(new Set(rows.map((row) => row.email)).size).toBe(250);
      expect(rows[0]).toMatchObject({ email: 'user000000@example.com', ipv4: '203.0.113.250', ipv6: '2001:db8::250', device: 'dev_cli', endpoint: 'verify' });
      const times = rows.map((row) => Number(row.created_at));
      expect(times[0]).toBeGreaterThanOrEqual(before - 30 * 60_000);
      expect(times[0]).toBeLessThanOrEqual(Date.now() - 29 * 60_000);
      expect(times.at(-1)).toBeLessThanOrEqual(Date.now());
      const v = await store.events.velocityReader(created.project.id).byIp({ ipv4: '203.0.113.250', ipv6: null, since: [], limit: 5 });
      expect([v.total, v.distinctEmails]).toEqual([250, 250]);
      expect((await store.events.velocityReader(created.project.id).byDevice({ device: 'dev_cli', since: [], limit: 5 })).distinctEmails).toBe(250);
    });
  });

  it.each([
    [['--count', '0'], /--count must be an integer from 1 to 10000000/],
    [['--count', '12abc'], /--count must be an integer/],
    [['--count', '5', '--ipv4', '300.1.2.3'], /--ipv4 must be an IPv4 address/],
    [['--count', '5', '--ipv4', '2001:db8::1'], /--ipv4 must be an IPv4 address/],
    [['--count', '5', '--ipv6', 'zz::1::2'], /--ipv6 must be an IPv6 address/],
    [['--count', '5', '--spread', '-1'], /--spread must be an integer from 0 to 43200/],
    [['--count', '5', '--device', 'x'.repeat(65)], /--device must be 1 to 64 characters/],
    [['--count', '5', '--project', 'no-such-project'], /no project named or with id "no-such-project"/],
  ])('refuses %j naming the option (exit 2), writing nothing', async (args, message) => {
    const count = () => withStore(async (store) => Number((await store.knex('events').count({ n: '*' }))[0]?.n));
    const before = await count();
    const r = await run('events', 'generate', ...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(await count()).toBe(before);
  });
});
