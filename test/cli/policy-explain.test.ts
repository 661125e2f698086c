// `email-trust policy explain`: what a security analyst sees at the terminal (text and --json), with the
// history and network answers a fixtures file declares, as policy tests declare them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';

const shippedPolicy = fileURLToPath(new URL('../../policies/default.yaml', import.meta.url));
const withFixtures = fileURLToPath(new URL('../fixtures/policies/with-fixtures.yaml', import.meta.url));

const run = runCli;

let dir: string;
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-explain-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('policy explain (text)', () => {
  it('prints the action, why it won, and each check with the values its conditions saw', async () => {
    const r = await run('policy', 'explain', '--policy', shippedPolicy, '--email', 'jane@mailinator.com');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^policy default\.yaml \(revision [0-9a-f]{16}\): block\n/);
    expect(r.out).toMatch(/\nwhy: block is the most severe action that fired, from disposable_domain \(severity: block > quarantine > .* > none\)\n/);
    expect(r.out).toContain(
      '\n[fired] disposable_domain  check, hard -> block (domain_is_disposable)\n    all of: held\n      is_disposable_domain equal true: saw true, held\n',
    );
    expect(r.out).toContain(
      '\n[     ] structure  check, hard -> block (invalid_address_format)\n    valid_address_format equal false: saw true, did not hold\n',
    );
    // Network checks answer "not checked" without fixtures: shown as unknown.
    expect(r.out).toContain('    mx_record_status equal "invalid": saw "not_checked" (unknown), did not hold\n');
  });

  it('shows the on_unknown that applied to a check whose facts were unknown', async () => {
    const policy = await file('strict-mx.yaml', 'version: "1.0"\nchecks:\n  mx_record: { mode: soft, on_unknown: block }\n');
    const r = await run('policy', 'explain', '--policy', policy, '--email', 'jane@example.com');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: block\nwhy: block is the most severe action that fired, from on_unknown:mx_record /);
    expect(r.out).toContain('    on_unknown block: unknown: mx_record_status, mx_record_count -> fired\n');
  });

  it('says when nothing fired and the default action applies', async () => {
    const r = await run('policy', 'explain', '--policy', withFixtures, '--email', 'jane@example.com');
    expect(r.code).toBe(0);
    expect(r.out).toContain("why: nothing fired: the policy's default_action allow applies\n");
  });
});

describe('policy explain --json, with fixtures', () => {
  it('uses the history and network answers of the fixtures file', async () => {
    const fixtures = await file(
      'fixtures.yaml',
      [
        'history:',
        '  - { email_address: alice@example.com, ipv4_address: 203.0.113.9, minutes_ago: 20 }',
        '  - { email_address: bob@example.com, ipv4_address: 203.0.113.9, minutes_ago: 5 }',
        'network:',
        '  nomail.example: {}',
        '',
      ].join('\n'),
    );
    const r = await run(
      'policy',
      'explain',
      '--policy',
      withFixtures,
      '--email',
      'carol@nomail.example',
      '--ipv4',
      '203.0.113.9',
      '--fixtures',
      fixtures,
      '--json',
    );
    expect(r.code).toBe(0);
    const explain = JSON.parse(r.out);
    expect(explain).toMatchObject({ policy: 'with-fixtures.yaml', action: 'block', decided_by: 'severity' });
    expect(explain.contributions).toEqual([
      { name: 'ip_duplication', action: 'challenge' },
      { name: 'mx_record', action: 'block' },
      { name: 'fallback_a_record', action: 'block' },
    ]);
    expect(explain.why).toBe(
      'block is the most severe action that fired, from mx_record, fallback_a_record; it outranks ip_duplication (challenge) (severity: block > quarantine > soft_block > challenge > warn > allow_with_review > allow_with_verification > allow > none)',
    );
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const entry = (name: string) => explain.entries.find((e: any) => e.name === name);
    expect(entry('ip_duplication')).toMatchObject({
      fired: true,
      conditions: { fact: 'distinct_emails_in_ip_last_30_minutes', operator: 'greaterThanInclusive', value: 3, saw: 3, held: true },
    });
    expect(entry('fallback_a_record').conditions).toEqual({ fact: 'a_record_fallback', operator: 'equal', value: 'invalid', saw: 'invalid', held: true });
    expect(entry('domain_age')).toMatchObject({ fired: false, conditions: { saw: 'unknown', unknown: true, held: false } });
  });

  it('uses the labels of the fixtures file for the reputation facts', async () => {
    const fixtures = await file('labels.yaml', 'labels:\n  - { email_address: carol@ring.com, label: fraud, days_ago: 2 }\n');
    const r = await run('policy', 'explain', '--policy', shippedPolicy, '--email', 'carol+2@ring.com', '--fixtures', fixtures, '--json');
    expect(r.code, r.err).toBe(0);
    const explain = JSON.parse(r.out);
    // The shipped default weighs a reported address 60: high, blocked by the risk score.
    expect(explain).toMatchObject({ action: 'block' });
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    expect(explain.entries.find((e: any) => e.name === 'reputation')).toMatchObject({ fired: true });
  });

  it('without fixtures, the same address is not checked on the network and has no history', async () => {
    const r = await run('policy', 'explain', '--policy', withFixtures, '--email', 'carol@nomail.example', '--ipv4', '203.0.113.9', '--json');
    expect(r.code).toBe(0);
    const explain = JSON.parse(r.out);
    expect(explain).toMatchObject({ action: 'allow', decided_by: 'default_action', contributions: [] });
  });
});

describe('policy explain refusals', () => {
  it.each([
    ['an unknown key', 'hisotry: []\n', 'unknown key hisotry'],
    ['a malformed history entry', 'history:\n  - { email: a@example.com }\n', 'history/0'],
    ['not a mapping', '- a\n', 'must be a mapping'],
  ])('a fixtures file with %s exits 2 naming the file and the problem', async (_what, text, problem) => {
    const fixtures = await file('bad-fixtures.yaml', text);
    const r = await run('policy', 'explain', '--policy', shippedPolicy, '--email', 'a@example.com', '--fixtures', fixtures);
    expect(r.code).toBe(2);
    expect(r.err).toContain(fixtures);
    expect(r.err).toContain(problem);
  });

  it('an invalid policy exits 3 with its problems at their line', async () => {
    const policy = await file('broken.yaml', 'version: "1.0"\nchecks:\n  no_such_check: { mode: soft }\n');
    const r = await run('policy', 'explain', '--policy', policy, '--email', 'a@example.com');
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${policy}:3:`);
    expect(r.err).toContain('unknown check "no_such_check"');
  });

  it('without --email exits 2', async () => {
    const r = await run('policy', 'explain', '--policy', shippedPolicy);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--email');
  });
});

describe('policy names, as verify --policy takes them, in policy explain, check and test', () => {
  it('explain, check and test take a shipped policy by name', async () => {
    const explained = await run('policy', 'explain', '--policy', 'strict-signup', '--email', 'jane@mailinator.com');
    expect([explained.code, explained.out.split('\n')[0]]).toEqual([0, expect.stringMatching(/^policy strict-signup \(revision [0-9a-f]{16}\): block$/)]);
    const checked = await run('policy', 'check', 'default', 'b2b-only');
    expect([checked.code, checked.out]).toEqual([0, expect.stringMatching(/^ok: default \(\d+ checks, \d+ rules, revision [0-9a-f]{16}\)\nok: b2b-only /)]);
    const tested = await run('policy', 'test', 'lenient-newsletter');
    expect(tested.code).toBe(0);
    expect(tested.out).toMatch(/^PASS {2}lenient-newsletter: /);
  });

  it.each([
    ['explain', ['policy', 'explain', '--policy', 'nosuch', '--email', 'a@example.com']],
    ['check', ['policy', 'check', 'nosuch']],
    ['test', ['policy', 'test', 'nosuch']],
  ])('%s of an unknown name exits 2 saying where it looked and what to do', async (_what, args) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /no policy "nosuch" in .*policies \(policies: b2b-only, default, lenient-newsletter, strict-signup\); add nosuch\.yaml to POLICIES_DIR, or give a policy file/,
    );
  });

  it('a missing file exits 2 naming it, not a raw ENOENT', async () => {
    const r = await run('policy', 'test', join(dir, 'absent.yaml'));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'absent.yaml')}: no such policy file`);
    expect(r.err).not.toContain('ENOENT');
  });
});

describe('policy explain by name', () => {
  it('without --email exits 2', async () => {
    const r = await run('policy', 'explain', '--policy', 'default');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--email');
  });
});
