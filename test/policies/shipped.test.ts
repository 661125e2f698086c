// Every shipped policy compiles and passes the tests written beside its rules; the ready policies' tests make
// each of their action-changing choices fire.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import risk from '../../plugins/risk/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { runPolicyTests } from '../../src/service/policy-tests.js';

const book = PolicyBook.load(policiesDir, new FactCatalog(registry));
const defaultPolicy = book.byName('default')!;

/** Check or free rule name → the action it contributes. */
const actionsOf = (policy: CompiledPolicy) =>
  new Map(
    [...policy.verdicts.values()]
      .flat()
      .filter((v) => v.source !== 'unknown' && v.source !== 'exemption')
      .map((v) => [v.name, v.action]),
  );

// The shipped known-abuse and spam-trap lists are empty, so these checks cannot fire in a policy's own tests
// (test/policies/reasons.test.ts makes them fire with a domain added).
const EMPTY_LISTS = new Set(['known_abuse_domain', 'spam_trap_domain']);

it('ships the default policy and the three ready ones', () => {
  expect(book.names()).toEqual(['b2b-only', 'default', 'lenient-newsletter', 'strict-signup']);
});

describe.each(book.names().map((name) => [name]))('policy %s', (name) => {
  const policy = book.byName(name)!;

  it('has tests', () => {
    expect(policy.tests.length).toBeGreaterThan(0);
  });

  it('passes its tests', async () => {
    const failed = (await runPolicyTests(policy)).filter((r) => !r.passed).map((r) => `${r.test.name}: ${r.failures.join('; ')}`);
    expect(failed).toEqual([]);
  });

  it('has an intelligence section', () => {
    expect(policy.verdict?.ruleCount).toBeGreaterThan(0);
  });
});

describe.each(
  book
    .names()
    .filter((name) => name !== 'default')
    .map((name) => [name]),
)('policy %s', (name) => {
  it("its tests make each check and rule fire whose action differs from the default policy's", async () => {
    const policy = book.byName(name)!;
    const fired = new Set((await runPolicyTests(policy)).flatMap((r) => r.fired));
    const defaults = actionsOf(defaultPolicy);
    const choices = [...actionsOf(policy)].filter(([check, action]) => defaults.get(check) !== action && !EMPTY_LISTS.has(check));
    expect(choices.length).toBeGreaterThan(0);
    expect(choices.filter(([check]) => !fired.has(check)).map(([check, action]) => `${check} (${action})`)).toEqual([]);
  });

  it('its tests apply each of its exemptions', async () => {
    const policy = book.byName(name)!;
    const applied = new Set((await runPolicyTests(policy)).flatMap((r) => r.exemptions));
    expect(policy.exemptions.map((e) => e.name).filter((e) => !applied.has(e))).toEqual([]);
  });
});

it('the default policy enables the velocity check, so a fresh install reports has_multiple_emails_in_ip', () => {
  expect(book.byName('default')!.checks.map((c) => c.name)).toContain('ip_duplication');
});

it('the default policy enables risk_score and writes out exactly the risk plugin defaults it documents', () => {
  const policy = book.byName('default')!;
  expect(policy.checks.find((c) => c.name === 'risk_score')).toMatchObject({ action: 'block' });
  expect(policy.options.risk_score).toEqual(risk.checks.risk_score?.defaults);
});
