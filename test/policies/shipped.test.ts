// Every shipped policy compiles and passes the tests written beside its rules.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import risk from '../../plugins/risk/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { runPolicyTests } from '../../src/service/policy-tests.js';

const book = PolicyBook.load(policiesDir, new FactCatalog(registry));

describe.each(book.names().map((name) => [name]))('policy %s', (name) => {
  const policy = book.byName(name)!;

  it('has tests', () => {
    expect(policy.tests.length).toBeGreaterThan(0);
  });

  it('passes its tests', async () => {
    const failed = (await runPolicyTests(policy)).filter((r) => !r.passed).map((r) => `${r.test.name}: ${r.failures.join('; ')}`);
    expect(failed).toEqual([]);
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
