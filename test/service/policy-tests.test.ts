// Policy tests (the `tests:` of a policy) with the history and network answers they declare: each runs
// through the real evaluation, velocity from a real in-memory SQLite store.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { loadPolicy } from '../../src/policy/load.js';
import { runPolicyTests } from '../../src/service/policy-tests.js';
import { fixturePolicy } from '../http/contract.js';

const catalog = new FactCatalog(registry);
const compile = (text: string) => loadPolicy({ name: 'with-fixtures', file: 'with-fixtures.yaml', text }, catalog);

describe('policy tests with fixtures', () => {
  it('pass when the decisions match what the history and network answers give', async () => {
    const results = await runPolicyTests(compile(fixturePolicy('with-fixtures')));
    expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
    expect(results).toHaveLength(9);
  });

  it('give a device to the input and to history entries: the device rule of the default policy, switched on', async () => {
    const policy = loadPolicy({ name: 'device-velocity', file: 'device-velocity.yaml', text: fixturePolicy('device-velocity') }, catalog);
    const results = await runPolicyTests(policy);
    expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
    expect(results).toHaveLength(5);
    // The shipped default carries the same rule, commented out.
    const shipped = readFileSync(fileURLToPath(new URL('../../policies/default.yaml', import.meta.url)), 'utf8');
    expect(shipped).toContain('#     conditions: { fact: distinct_emails_from_device_last_1_day, operator: greaterThan, value: 3 }');
  });

  it('fail, saying what differed, when the expectations do not hold', async () => {
    const wrong = fixturePolicy('with-fixtures')
      .replace(
        'expected: { action: challenge, errors: [], warnings: [multiple_accounts_detected], fired: [ip_duplication] }',
        'expected: { action: allow, fired: [] }',
      )
      .replace('expected: { action: block, errors: [no_mx_records], fired: [mx_record] }', 'expected: { action: block, errors: [no_a_record] }');
    const failed = (await runPolicyTests(compile(wrong))).filter((r) => !r.passed);
    expect(failed.map((r) => [r.test.name, r.failures])).toEqual([
      ['a third address from one IP within half an hour is challenged', ['action: expected allow, got challenge', 'fired: expected [], got [ip_duplication]']],
      ['a domain without MX but with an address falls back to it', ['errors: expected [no_a_record], got [no_mx_records]']],
    ]);
  });

  it('keep each test to its own history', async () => {
    const text = `version: "1"
checks:
  ip_duplication: { mode: soft, options: { threshold: 2 } }
tests:
  - name: two addresses
    input: { email_address: b@x.example, ipv4_address: 192.0.2.1 }
    history: [ { email_address: a@x.example, ipv4_address: 192.0.2.1, minutes_ago: 1 } ]
    expected: { fired: [ip_duplication] }
  - name: no history of its own
    input: { email_address: c@x.example, ipv4_address: 192.0.2.1 }
    history: []
    expected: { fired: [] }
`;
    const results = await runPolicyTests(compile(text));
    expect(results.map((r) => r.failures)).toEqual([[], []]);
  });

  it('declare labels for the reputation facts, counted under the base address, domain, network and device, within the window', async () => {
    const text = `version: "1"
checks:
  reputation: { mode: soft, action: none }
rules:
  - name: domain_reported
    action: challenge
    warning: domain_reported
    conditions: { all: [ { fact: domain_reported_count, operator: greaterThanInclusive, value: 2 } ] }
  - name: address_reported
    action: block
    error: address_reported
    conditions: { all: [ { fact: email_reported, operator: equal, value: true } ] }
tests:
  - name: two fraud labels on the domain in the window challenge another of its addresses
    input: { email_address: carol@ring.com, ipv4_address: 203.0.113.50 }
    labels:
      - { email_address: alice@ring.com, label: fraud, days_ago: 3 }
      - { email_address: bob@ring.com, label: chargeback, ipv4_address: 203.0.113.9, days_ago: 10 }
      - { email_address: dave@ring.com, label: legitimate }
    expected: { action: challenge, warnings: [domain_reported], fired: [domain_reported] }
  - name: one of them outside the 30-day window does not
    input: { email_address: carol@ring.com }
    labels:
      - { email_address: alice@ring.com, label: fraud, days_ago: 3 }
      - { email_address: bob@ring.com, label: fraud, days_ago: 45 }
    expected: { action: allow, fired: [] }
  - name: a labelled address comes back under a plus tag
    input: { email_address: Alice+again@ring.com }
    labels: [ { email_address: alice@ring.com, label: abuse } ]
    expected: { action: block, errors: [address_reported] }
  - name: no labels of its own
    input: { email_address: alice@ring.com }
    expected: { action: allow }
`;
    const results = await runPolicyTests(compile(text));
    expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
  });

  it('declare what a DNS blocklist answers: a listing, a refused query (unknown), an IP listing, none declared', async () => {
    const text = `version: "1"
checks:
  known_abuse_domain: { mode: hard, action: block }
  dnsbl_domain: { mode: soft, action: allow_with_review }
  dnsbl_ip: { mode: soft, action: challenge }
tests:
  - name: a domain its zone lists as spam is known abuse
    input: { email_address: jane@spam-site.com }
    blocklists: { domains: { spam-site.com: 127.0.1.2 } }
    expected: { action: block, is_known_abuse_domain: true, errors: [domain_is_known_abuse], warnings: [domain_on_dnsbl] }
  - name: a refused query (a public resolver) tells nothing
    input: { email_address: jane@spam-site.com }
    blocklists: { domains: { spam-site.com: 127.255.255.254 } }
    expected: { action: allow, is_known_abuse_domain: false, fired: [] }
  - name: a listed IP is challenged
    input: { email_address: jane@fine.com, ipv4_address: 81.2.69.142 }
    blocklists: { ips: { 81.2.69.142: [127.0.0.4] } }
    expected: { action: challenge, warnings: [ip_on_dnsbl], fired: [dnsbl_ip] }
  - name: without blocklists no zone is configured
    input: { email_address: jane@spam-site.com }
    expected: { action: allow, is_known_abuse_domain: false }
`;
    const results = await runPolicyTests(compile(text));
    expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
  });

  it('refuses a label that is none, with its position', () => {
    const bad = `version: "1"
tests:
  - name: bad
    input: { email_address: a@x.example }
    labels: [ { email_address: b@x.example, label: scam } ]
    expected: {}
`;
    expect(() => compile(bad)).toThrow(/with-fixtures\.yaml:5:\d+: \/tests\/0\/labels\/0\/label: must be one of: fraud, abuse/);
  });

  it('refuses a blocklist answer outside 127/8, with its position', () => {
    const bad = `version: "1"
tests:
  - name: bad
    input: { email_address: a@x.example }
    blocklists: { domains: { x.example: 10.0.0.1 } }
    expected: {}
`;
    expect(() => compile(bad)).toThrow(/with-fixtures\.yaml:5:\d+: \/tests\/0\/blocklists\/domains\/x\.example/);
  });

  it('refuses fixtures that are not well formed, with their position', () => {
    const bad = `version: "1"
tests:
  - name: bad
    input: { email_address: a@x.example }
    network: { x.example: { mx: mx.x.example } }
    expected: {}
`;
    expect(() => compile(bad)).toThrow(/with-fixtures\.yaml:5:\d+: \/tests\/0\/network\/x\.example/);
  });
});

describe('policy tests on what verify answers', () => {
  const policy = `version: "1"
checks:
  free_provider_domain: { mode: soft, action: none }
  typo_detection: { mode: soft }
  risk_score: { mode: soft, action: block }
rules:
  - name: free-mailbox
    conditions: { fact: is_free_provider_domain, operator: equal, value: true }
    action: challenge
    warning: rule_free_mailbox
tests:
  - name: a free mailbox is challenged by a rule that names itself
    input: { email_address: jane@gmail.com }
    expected: { action: challenge, is_free_provider_domain: true, corrected_email: null, risk_level: null, risk_score: 0, warnings: [rule_free_mailbox], fired: [free_provider_domain, free-mailbox] }
  - name: a typo gets its correction
    input: { email_address: jane@gmial.com }
    expected: { is_free_provider_domain: false, corrected_email: jane@gmail.com, warnings: [domain_typo_detected], fired: [typo_detection] }
  - name: a machine-made disposable address is high risk
    input: { email_address: x7kq2m9vz3p8@mailinator.com }
    expected: { action: block, risk_level: high, risk_score: 60, fired: [risk_score] }
`;

  it('assert flags, corrected_email, risk_level, risk_score and the rules that fired', async () => {
    const results = await runPolicyTests(compile(policy));
    expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
    expect(results.every((r) => r.explanation === undefined)).toBe(true);
  });

  it('fail on each field that differs, keeping what fired and the facts it saw', async () => {
    const wrong = policy
      .replace('is_free_provider_domain: true, corrected_email: null', 'is_free_provider_domain: false, corrected_email: jane@gmail.org')
      .replace('risk_level: high, risk_score: 60', 'risk_level: critical, risk_score: 85');
    const failed = (await runPolicyTests(compile(wrong))).filter((r) => !r.passed);
    expect(failed.map((r) => r.failures)).toEqual([
      ['is_free_provider_domain: expected false, got true', 'corrected_email: expected "jane@gmail.org", got null'],
      ['risk_level: expected "critical", got "high"', 'risk_score: expected 85, got 60'],
    ]);
    const story = failed[0]?.explanation;
    expect(story?.contributions).toEqual([
      { name: 'free_provider_domain', action: 'none' },
      { name: 'free-mailbox', action: 'challenge' },
    ]);
    expect(story?.entries.find((e) => e.name === 'free-mailbox')?.conditions).toMatchObject({ fact: 'is_free_provider_domain', saw: true, held: true });
  });
});
