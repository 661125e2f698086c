// `policy check` prints the compiler's warnings with their places and exits 0; `--strict` refuses them
// (exit 3). `policy test` shows, for a failed test, what each rule it expected to fire saw.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-policy-warnings-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const WARNED = `version: "1.0"
checks:
  vpn_ip: { mode: soft, action: challenge }
  specific_domains: { enabled: false, options: { domains: [partner.example.com] } }
exemptions:
  - { name: partners, when: { domains: [partner.example.com] }, from: [vpn_ip, domain_age] }
`;

describe('policy check', () => {
  it('prints each warning at its line and column and exits 0', async () => {
    const file = join(dir, 'warned.yaml');
    await writeFile(file, WARNED);
    const r = await runCli('policy', 'check', file);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: .*warned\.yaml \(1 checks, 2 rules, revision [0-9a-f]{16}\), 2 warnings\n$/);
    expect(r.err).toBe(
      [
        `${file}:4:48: /checks/specific_domains/options: warning: check specific_domains is disabled (enabled: false), so these options are not used: remove them, or enable the check`,
        `${file}:6:80: /exemptions/0/from/1: warning: check domain_age is not enabled in this policy, so exemption partners sets nothing aside for it`,
        '',
      ].join('\n'),
    );
  });

  it('with --strict refuses a policy with warnings (exit 3), and passes one without', async () => {
    const file = join(dir, 'warned.yaml');
    await writeFile(file, WARNED);
    const strict = await runCli('policy', 'check', '--strict', file);
    expect(strict.code).toBe(3);
    expect(strict.out).toBe('');
    expect(strict.err).toContain(`${file}:4:48: /checks/specific_domains/options: warning (--strict): check specific_domains is disabled`);
    expect(strict.err).toMatch(/invalid policy: 2 problem\(s\)/);
    const clean = await runCli('policy', 'check', '--strict', 'b2b-only', 'default');
    expect([clean.code, clean.err]).toEqual([0, '']);
  });

  it('refuses a check that can block without a code, naming the rule and a code to add', async () => {
    const file = join(dir, 'codeless.yaml');
    await writeFile(
      file,
      'version: "1.0"\nrules:\n  - name: no-free-mail\n    action: block\n    conditions: { fact: is_free_provider_domain, operator: equal, value: true }\n',
    );
    const r = await runCli('policy', 'check', file);
    expect(r.code).toBe(3);
    expect(r.err).toContain(
      `${file}:4:13: /rules/0/action: rule "no-free-mail" can decide block without a code, so an answer would not say why: add \`error: rule_no_free_mail\` (or a code of your own) to the rule`,
    );
  });
});

describe("a new analyst's B2B policy, written from the docs alone", () => {
  const file = new URL('../fixtures/policies/analyst-b2b.yaml', import.meta.url).pathname;

  it('passes policy check --strict and its own tests, the partner exemption among them', async () => {
    const check = await runCli('policy', 'check', '--strict', file);
    expect([check.code, check.err]).toEqual([0, '']);
    const tests = await runCli('policy', 'test', file);
    expect(tests.code).toBe(0);
    expect(tests.out).toContain('PASS  analyst-b2b.yaml: a partner from a VPN is allowed\n');
    expect(tests.out).toContain('PASS  analyst-b2b.yaml: a non-partner from a VPN is challenged\n');
    expect(tests.out).toMatch(/\n9 passed, 0 failed\n$/);
  });
});

describe('policy test', () => {
  it('shows an expected rule that did not fire, with what its conditions saw', async () => {
    const file = join(dir, 'expects.yaml');
    await writeFile(
      file,
      `version: "1.0"
checks:
  free_provider_domain: { mode: soft, action: none }
rules:
  - name: free-and-plus
    action: challenge
    warning: free_and_plus
    conditions: { all: [{ fact: is_free_provider_domain, operator: equal, value: true }, { fact: has_plus_addressing, operator: equal, value: true }] }
tests:
  - name: a free mailbox without a tag is challenged
    input: { email_address: jane@gmail.com }
    expected: { action: challenge, fired: [free-and-plus] }
`,
    );
    const r = await runCli('policy', 'test', file);
    expect(r.code).toBe(4);
    expect(r.out).toContain('[expected to fire, did not]');
    expect(r.out).toContain('[     ] free-and-plus  rule -> challenge (free_and_plus)');
    expect(r.out).toContain('is_free_provider_domain equal true: saw true, held');
    expect(r.out).toContain('has_plus_addressing equal true: saw false, did not hold');
  });
});
