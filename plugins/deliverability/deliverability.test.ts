// deliverability reads the dns, domain-age and subdomain facts. Every plugin is the real one: dns and
// domain-age answer from network answers per domain (the form a policy test declares), at a fixed time, so
// these tests need no network. The answers are checked below to give the dns and domain-age facts meant.
import { describe, expect, it } from 'vitest';
import type { FactValues } from '../../src/engine/plugin.js';
import { PolicyError } from '../../src/policy/errors.js';
import type { DomainAnswers } from '../../src/policy/types.js';
import { dnsFacts } from '../../test/support/dns-facts.js';
import { checksPolicy, computeFacts, decisionFor, evaluateFor, type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import dns from '../dns/index.js';
import domainAge from '../domain-age/index.js';
import deliverability from './index.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');
const DAY = 86_400_000;

// DNS answers of each kind of domain (MX hosts, A and AAAA records; 'error': the question failed).
type Answers = Exclude<DomainAnswers, string>;
const MX_HOSTS = ['mx1.mail.example', 'mx2.mail.example'];
const MX_OK: Answers = { mx: MX_HOSTS, a: ['192.0.2.1'] };
const MX_NO_ADDRESS: Answers = { mx: MX_HOSTS };
const MX_AAAA_ONLY: Answers = { mx: MX_HOSTS, aaaa: ['2001:db8::1'] };
const MX_ADDRESS_UNKNOWN: Answers = { mx: MX_HOSTS, a: 'error', aaaa: 'error' };
const MX_IP_HOSTS: Answers = { mx: ['192.0.2.25'], a: ['192.0.2.1'] };
const A_ONLY: Answers = { a: ['192.0.2.1'] };
const NULL_MX: Answers = { mx: ['.'], a: ['192.0.2.1'] };
const NOT_CHECKED: Answers = { mx: 'error', a: 'error', aaaa: 'error' };
const A_UNANSWERED: Answers = { a: 'error', aaaa: 'error' };

// Registration (RDAP) of a registrable domain, days before NOW; no `registered`: the age is unknown.
const registered = (days: number) => ({ registered: new Date(NOW - days * DAY).toISOString() });
const ESTABLISHED = registered(4000);

/** What the network answers; registration is asked of the registrable domain, DNS of the address's domain. */
const NETWORK: Record<string, DomainAnswers> = {
  'mx-est.com': { ...MX_OK, ...ESTABLISHED },
  'mail.mx-est.com': MX_OK,
  'a.b.mx-est.com': MX_OK,
  'a.b.c.d.mx-est.com': MX_OK,
  'x7kq2m9vz3p8.mx-est.com': MX_OK,
  '550e8400-e29b-41d4-a716-446655440000.mx-est.com': MX_OK,
  'x7kq2m9vz3p8.a.b.c.mx-est.com': MX_OK,
  'mx-new0.com': { ...MX_OK, ...registered(0) },
  'mx-new15.com': { ...MX_OK, ...registered(15) },
  'mx-new29.com': { ...MX_OK, ...registered(29) },
  'mx-new45.com': { ...MX_OK, ...registered(45) },
  'mx-noage.com': MX_OK,
  'mx-noaddress.com': { ...MX_NO_ADDRESS, ...ESTABLISHED },
  'mx-aaaa.com': { ...MX_AAAA_ONLY, ...ESTABLISHED },
  'mx-aunknown.com': { ...MX_ADDRESS_UNKNOWN, ...ESTABLISHED },
  'mx-iphosts.com': { ...MX_IP_HOSTS, ...ESTABLISHED },
  'a-only.com': { ...A_ONLY, ...ESTABLISHED },
  'a-only-new.com': registered(0),
  'x7kq2m9vz3p8.a-only-new.com': A_ONLY,
  'null-mx.com': { ...NULL_MX, ...ESTABLISHED },
  'nxdomain.com': 'nxdomain',
  'servfail.com': { ...NOT_CHECKED, ...ESTABLISHED },
  'a-unanswered.com': { ...A_UNANSWERED, ...ESTABLISHED },
};
const world = { network: NETWORK, now: () => NOW };

const age = (days: number | null, signal: string) => ({
  domain_age_days: days,
  domain_age_signal: signal,
  domain_registered_at: days === null ? null : new Date(NOW - days * DAY).toISOString(),
});

describe('the network answers give the dns and domain-age facts the scores are about', () => {
  it.each<[string, FactValues, FactValues]>([
    ['a@mx-est.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(4000, 'established')],
    ['a@a.b.c.d.mx-est.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(4000, 'established')],
    ['a@mx-new0.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(0, 'new_domain')],
    ['a@mx-new15.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(15, 'new_domain')],
    ['a@mx-new29.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(29, 'new_domain')],
    ['a@mx-noage.com', dnsFacts(2, 'valid', 'not_needed', 1, 0), age(null, 'unknown')],
    ['a@mx-noaddress.com', dnsFacts(2, 'valid', 'not_needed', 0, 0), age(4000, 'established')],
    ['a@mx-aaaa.com', dnsFacts(2, 'valid', 'not_needed', 0, 1), age(4000, 'established')],
    ['a@mx-aunknown.com', dnsFacts(2, 'valid', 'not_needed', null, null), age(4000, 'established')],
    ['a@mx-iphosts.com', dnsFacts(1, 'valid', 'not_needed', 1, 0, false, true), age(4000, 'established')],
    ['a@a-only.com', dnsFacts(0, 'invalid', 'valid', 1, 0), age(4000, 'established')],
    ['a@x7kq2m9vz3p8.a-only-new.com', dnsFacts(0, 'invalid', 'valid', 1, 0), age(0, 'new_domain')],
    ['a@null-mx.com', dnsFacts(0, 'invalid', 'invalid', 1, 0, true), age(4000, 'established')],
    ['a@nxdomain.com', dnsFacts(0, 'invalid', 'invalid', 0, 0), age(null, 'unknown')],
    ['a@servfail.com', dnsFacts(null, 'not_checked', null, null, null, null, null), age(4000, 'established')],
    ['a@a-unanswered.com', dnsFacts(0, 'invalid', null, null, null), age(4000, 'established')],
  ])('%s', async (email, dnsExpected, ageExpected) => {
    expect(await computeFacts(dns, { email }, world)).toEqual(dnsExpected);
    expect(await computeFacts(domainAge, { email }, world)).toEqual(ageExpected);
  });
});

const scores = (score: number | null, mx: number | null, a: number | null, age: number | null, subdomain: number | null) => ({
  deliverability_score: score,
  deliverability_mx_score: mx,
  deliverability_a_score: a,
  deliverability_age_score: age,
  deliverability_subdomain_score: subdomain,
});
const DELIVERABLE = { deliverability: 'deliverable', email_deliverable: true };
const UNDELIVERABLE = { deliverability: 'undeliverable', email_deliverable: false };
const UNKNOWN = { deliverability: 'unknown', email_deliverable: null };
const FIRES = ['deliverability_score'];

/** A row with the score's weights set: [mx, a, age, subdomain]. */
const weighted = (
  name: string,
  email: string,
  [mx, a, age, subdomain]: [number, number, number, number],
  facts: FactValues,
  fires: string[] = [],
): PluginCase => ({
  name,
  email,
  options: { deliverability_score: { weights: { mx, a, age, subdomain } } },
  facts,
  fires,
});

const rows: PluginCase[] = [
  // Default weights: mx 50, a 10, age 25, subdomain 15; min_score 40.
  {
    name: 'MX, A, established, no subdomain: every part full',
    email: 'a@mx-est.com',
    facts: { ...scores(100, 50, 10, 25, 15), ...DELIVERABLE },
    fires: [],
  },
  { name: 'one subdomain level costs nothing', email: 'a@mail.mx-est.com', facts: scores(100, 50, 10, 25, 15), fires: [] },
  { name: 'two levels cost a third of the subdomain weight', email: 'a@a.b.mx-est.com', facts: scores(95, 50, 10, 25, 10), fires: [] },
  { name: 'deep nesting (4 levels) costs two thirds', email: 'a@a.b.c.d.mx-est.com', facts: scores(90, 50, 10, 25, 5), fires: [] },
  { name: 'random label costs two thirds', email: 'a@x7kq2m9vz3p8.mx-est.com', facts: scores(90, 50, 10, 25, 5), fires: [] },
  {
    name: 'UUID label costs two thirds',
    email: 'a@550e8400-e29b-41d4-a716-446655440000.mx-est.com',
    facts: scores(90, 50, 10, 25, 5),
    fires: [],
  },
  {
    name: 'random label and deep nesting: nothing left',
    email: 'a@x7kq2m9vz3p8.a.b.c.mx-est.com',
    facts: { ...scores(85, 50, 10, 25, 0), ...DELIVERABLE },
    fires: [],
  },

  { name: 'new domain registered today: no age points', email: 'a@mx-new0.com', facts: { ...scores(75, 50, 10, 0, 15), ...DELIVERABLE }, fires: [] },
  { name: 'new domain of 15 days: a quarter of the age weight', email: 'a@mx-new15.com', facts: scores(81, 50, 10, 6, 15), fires: [] },
  { name: 'new domain of 29 days: just under half', email: 'a@mx-new29.com', facts: scores(87, 50, 10, 12, 15), fires: [] },
  {
    name: 'age unknown: scored over the known 75 points',
    email: 'a@mx-noage.com',
    facts: { ...scores(100, 50, 10, null, 15), ...DELIVERABLE },
    fires: [],
  },

  { name: 'MX but no A/AAAA: no address points', email: 'a@mx-noaddress.com', facts: scores(90, 50, 0, 25, 15), fires: [] },
  { name: 'MX and only AAAA: address points', email: 'a@mx-aaaa.com', facts: scores(100, 50, 10, 25, 15), fires: [] },
  { name: 'MX, address records not looked up: address part unknown', email: 'a@mx-aunknown.com', facts: scores(100, 50, null, 25, 15), fires: [] },
  {
    name: 'MX hosts are IP addresses: half the MX weight',
    email: 'a@mx-iphosts.com',
    facts: { ...scores(75, 25, 10, 25, 15), ...DELIVERABLE },
    fires: [],
  },

  {
    name: 'no MX, A fallback, established: deliverable through the A record',
    email: 'a@a-only.com',
    facts: { ...scores(50, 0, 10, 25, 15), ...DELIVERABLE },
    fires: [],
  },
  {
    name: 'A fallback, new domain, random label: below min_score',
    email: 'a@x7kq2m9vz3p8.a-only-new.com',
    facts: { ...scores(15, 0, 10, 0, 5), ...UNDELIVERABLE },
    fires: FIRES,
  },
  {
    name: 'null MX: undeliverable whatever the score (40 here)',
    email: 'a@null-mx.com',
    facts: { ...scores(40, 0, 0, 25, 15), ...UNDELIVERABLE },
    fires: FIRES,
  },
  {
    name: 'NXDOMAIN, age unknown: scored over 75 points, undeliverable',
    email: 'a@nxdomain.com',
    facts: { ...scores(20, 0, 0, null, 15), ...UNDELIVERABLE },
    fires: FIRES,
  },

  {
    name: 'DNS not checked (SERVFAIL, timeout, offline): score unknown',
    email: 'a@servfail.com',
    facts: { ...scores(null, null, null, 25, 15), ...UNKNOWN },
    fires: [],
  },
  {
    name: 'no MX and the A question unanswered: route unknown',
    email: 'a@a-unanswered.com',
    facts: { ...scores(null, 0, null, 25, 15), ...UNKNOWN },
    fires: [],
  },
  {
    name: 'address literal: nothing to look up',
    email: 'a@[192.168.0.1]',
    facts: { ...scores(null, null, null, null, null), ...UNKNOWN },
    fires: [],
  },
  { name: 'not an address', email: 'plainaddress', facts: { ...scores(null, null, null, null, null), ...UNKNOWN }, fires: [] },

  // Options.
  {
    name: 'min_score equal to the score: deliverable',
    email: 'a@a.b.mx-est.com',
    options: { deliverability_score: { min_score: 95 } },
    facts: { deliverability_score: 95, ...DELIVERABLE },
    fires: [],
  },
  {
    name: 'min_score one above the score: undeliverable',
    email: 'a@a.b.mx-est.com',
    options: { deliverability_score: { min_score: 96 } },
    facts: { deliverability_score: 95, ...UNDELIVERABLE },
    fires: FIRES,
  },
  {
    name: 'min_score 0: a routable domain is always deliverable',
    email: 'a@x7kq2m9vz3p8.a-only-new.com',
    options: { deliverability_score: { min_score: 0 } },
    facts: DELIVERABLE,
    fires: [],
  },
  weighted('only MX weighted: an A-only domain scores 0', 'a@a-only.com', [100, 0, 0, 0], { ...scores(0, 0, 0, 0, 0), ...UNDELIVERABLE }, FIRES),
  weighted('only MX weighted: a new domain scores 100', 'a@mx-new0.com', [100, 0, 0, 0], scores(100, 100, 0, 0, 0)),
  weighted('weights summing to 50 are doubled', 'a@mx-est.com', [25, 5, 10, 10], scores(100, 50, 10, 20, 20)),
  weighted('weights 1/1/1/0: scaled to 34/33/33/0 (largest remainder, MX first on a tie)', 'a@a-only.com', [1, 1, 1, 0], scores(66, 0, 33, 33, 0)),
  weighted('only age weighted and age unknown: no score, unknown', 'a@mx-noage.com', [0, 0, 100, 0], { ...scores(null, 0, 0, null, 0), ...UNKNOWN }),
  weighted('all weights zero: no score', 'a@mx-est.com', [0, 0, 0, 0], { deliverability_score: null, ...UNKNOWN }),
  weighted('all weights zero, null MX: still undeliverable', 'a@null-mx.com', [0, 0, 0, 0], { deliverability_score: null, ...UNDELIVERABLE }, FIRES),
];

testPlugin(deliverability, rows, world);

describe('deliverability scores', () => {
  it('keeps the score equal to the sum of the contributions when every part is known', async () => {
    let summed = 0;
    for (const row of rows.filter((r) => !r.options)) {
      const f = await computeFacts(deliverability, row, world);
      const parts = [f.deliverability_mx_score, f.deliverability_a_score, f.deliverability_age_score, f.deliverability_subdomain_score];
      if (f.deliverability_score === null || parts.includes(null)) continue;
      expect(f.deliverability_score, row.name).toBe((parts as number[]).reduce((s, p) => s + p, 0));
      summed += 1;
    }
    expect(summed).toBeGreaterThan(10);
  });

  it("caps a new domain past 30 days (domain_age's new_domain_days 60) at half the age weight", async () => {
    const policy = checksPolicy({ deliverability_score: { mode: 'hard' }, domain_age: { mode: 'soft', options: { new_domain_days: 60 } } });
    const evaluation = await evaluateFor(policy, { email: 'a@mx-new45.com' }, world);
    expect(await evaluation.fact('domain_age_days')).toBe(45);
    expect(await evaluation.fact('domain_age_signal')).toBe('new_domain');
    const facts = Object.fromEntries(await Promise.all(Object.keys(scores(0, 0, 0, 0, 0)).map(async (name) => [name, await evaluation.fact(name)])));
    expect(facts).toEqual(scores(88, 50, 10, 13, 15));
  });
});

describe('deliverability_score check (code low_deliverability_score)', () => {
  const fired = async (email: string, config: Record<string, unknown>) =>
    (await decisionFor({ deliverability_score: { mode: 'hard', ...config } }, email, world)).fired.map((v) => `${v.source}:${v.name}`);

  it('takes its action when it fires, naming its code', async () => {
    const decide = (email: string) => decisionFor({ deliverability_score: { mode: 'hard', action: 'block' } }, email, world);
    expect(await decide('a@null-mx.com')).toMatchObject({ action: 'block', errors: ['low_deliverability_score'], warnings: [] });
    expect(await decide('a@mx-est.com')).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });

  it('leaves an unknown route to on_unknown', async () => {
    expect(await fired('a@servfail.com', {})).toEqual([]);
    expect(await fired('a@servfail.com', { on_unknown: 'block' })).toEqual(['unknown:deliverability_score']);
    expect(await fired('a@mx-est.com', { on_unknown: 'block' })).toEqual([]);
  });

  it.each([
    ['a weight missing', { weights: { mx: 50, a: 10, age: 40 } }],
    ['a weight above 100', { weights: { mx: 101, a: 0, age: 0, subdomain: 0 } }],
    ['a negative weight', { weights: { mx: 60, a: -10, age: 25, subdomain: 25 } }],
    ['a fractional weight', { weights: { mx: 49.5, a: 10.5, age: 25, subdomain: 15 } }],
    ['an unknown part', { weights: { mx: 50, a: 10, age: 25, subdomain: 15, spf: 0 } }],
    ['min_score above 100', { min_score: 101 }],
    ['min_score not an integer', { min_score: '40' }],
    ['an unknown option', { threshold: 40 }],
  ])('refuses options with %s', (_what, options) => {
    expect(() => checksPolicy({ deliverability_score: { mode: 'hard', options } })).toThrow(PolicyError);
  });
});
