// deliverability reads the dns, domain-age and subdomain facts. The dns, domain-age and website plugins

// are replaced by stand-ins (same ids, facts and types) answering from a table per domain, so these
// tests need no network; structure, tld and subdomain are the real plugins.
import { describe, expect, it } from 'vitest';
import deliverability from '../../plugins/deliverability/index.js';
import type { CheckOptions, FactValues } from '../../src/engine/plugin.js';
import { PolicyRunner } from '../../src/engine/run.js';
import { compilePolicy } from '../../src/policy/compile.js';
import { PolicyError } from '../../src/policy/errors.js';
import { parsePolicy } from '../../src/policy/load.js';
import { standInCatalog, type Zone } from '../support/network-stand-ins.js';
import { evaluateFor } from '../support/plugin-tester.js';

const dnsFacts = (
  mxCount: number,
  status: string,
  fallback: string | null,
  a: number | null,
  aaaa: number | null,
  nullMx = false,
  ipHosts = false,
): FactValues => ({
  mx_record_count: mxCount,
  mx_record_status: status,
  a_record_fallback: fallback,
  a_record_count: a,
  aaaa_record_count: aaaa,
  has_null_mx: nullMx,
  mx_hosts_are_ips: ipHosts,
});
const MX_OK = dnsFacts(2, 'valid', 'not_needed', 1, 0);
const MX_NO_ADDRESS = dnsFacts(2, 'valid', 'not_needed', 0, 0);
const MX_AAAA_ONLY = dnsFacts(2, 'valid', 'not_needed', 0, 1);
const MX_ADDRESS_UNKNOWN = dnsFacts(2, 'valid', 'not_needed', null, null);
const MX_IP_HOSTS = dnsFacts(1, 'valid', 'not_needed', 1, 0, false, true);
const A_ONLY = dnsFacts(0, 'invalid', 'valid', 1, 0);
const NULL_MX = dnsFacts(0, 'invalid', 'invalid', 1, 0, true);
const NXDOMAIN = dnsFacts(0, 'invalid', 'invalid', 0, 0);
const NOT_CHECKED: FactValues = { mx_record_status: 'not_checked' };
const A_UNANSWERED: FactValues = { mx_record_count: 0, mx_record_status: 'invalid', has_null_mx: false };

const ESTABLISHED = { domain_age_days: 4000, domain_age_signal: 'established', domain_registered_at: '2016-01-01T00:00:00.000Z' };
const fresh = (days: number) => ({ domain_age_days: days, domain_age_signal: 'new_domain', domain_registered_at: '2026-11-01T00:00:00.000Z' });
const AGE_UNKNOWN = { domain_age_days: null, domain_age_signal: 'unknown', domain_registered_at: null };

/** Facts per domain; a domain not listed has null facts (as for an address literal). */
const ZONES: Record<string, Zone> = {
  'mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'mail.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'a.b.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'a.b.c.d.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'x7kq2m9vz3p8.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  '550e8400-e29b-41d4-a716-446655440000.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'x7kq2m9vz3p8.a.b.c.mx-est.com': { dns: MX_OK, age: ESTABLISHED },
  'mx-new0.com': { dns: MX_OK, age: fresh(0) },
  'mx-new15.com': { dns: MX_OK, age: fresh(15) },
  'mx-new29.com': { dns: MX_OK, age: fresh(29) },
  'mx-new45.com': { dns: MX_OK, age: fresh(45) },
  'mx-noage.com': { dns: MX_OK, age: AGE_UNKNOWN },
  'mx-noaddress.com': { dns: MX_NO_ADDRESS, age: ESTABLISHED },
  'mx-aaaa.com': { dns: MX_AAAA_ONLY, age: ESTABLISHED },
  'mx-aunknown.com': { dns: MX_ADDRESS_UNKNOWN, age: ESTABLISHED },
  'mx-iphosts.com': { dns: MX_IP_HOSTS, age: ESTABLISHED },
  'a-only.com': { dns: A_ONLY, age: ESTABLISHED },
  'x7kq2m9vz3p8.a-only-new.com': { dns: A_ONLY, age: fresh(0) },
  'null-mx.com': { dns: NULL_MX, age: ESTABLISHED },
  'nxdomain.com': { dns: NXDOMAIN, age: AGE_UNKNOWN },
  'servfail.com': { dns: NOT_CHECKED, age: ESTABLISHED },
  'a-unanswered.com': { dns: A_UNANSWERED, age: ESTABLISHED },
};

const catalog = standInCatalog(ZONES);
const runner = new PolicyRunner(catalog, []);
const noVelocity = { byIp: async () => ({ emails: [], distinctEmails: 0, total: 0, since: [] }) };
const input = (email: string) => ({ email, ipv4: null, ipv6: null, softCheck: false, projectId: 'test-project' });

async function factsOf(email: string, options: CheckOptions = {}): Promise<FactValues> {
  const merged = { deliverability_score: { ...deliverability.checks.deliverability_score!.defaults, ...options } };
  const errors: unknown[] = [];
  const outcome = await runner.run({
    input: input(email),
    options: merged,
    services: { velocity: noVelocity, now: Date.now, onPluginError: (_id, e) => errors.push(e) },
  });
  const facts: FactValues = {};
  for (const name of Object.keys(deliverability.facts)) facts[name] = await outcome.fact(name);
  if (errors.length > 0) throw errors[0];
  return facts;
}

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

interface Row {
  name: string;
  email: string;
  options?: CheckOptions;
  facts: FactValues;
}

const rows: Row[] = [
  // Default weights: mx 50, a 10, age 25, subdomain 15; min_score 40.
  { name: 'MX, A, established, no subdomain: every part full', email: 'a@mx-est.com', facts: { ...scores(100, 50, 10, 25, 15), ...DELIVERABLE } },
  { name: 'one subdomain level costs nothing', email: 'a@mail.mx-est.com', facts: scores(100, 50, 10, 25, 15) },
  { name: 'two levels cost a third of the subdomain weight', email: 'a@a.b.mx-est.com', facts: scores(95, 50, 10, 25, 10) },
  { name: 'deep nesting (4 levels) costs two thirds', email: 'a@a.b.c.d.mx-est.com', facts: scores(90, 50, 10, 25, 5) },
  { name: 'random label costs two thirds', email: 'a@x7kq2m9vz3p8.mx-est.com', facts: scores(90, 50, 10, 25, 5) },
  { name: 'UUID label costs two thirds', email: 'a@550e8400-e29b-41d4-a716-446655440000.mx-est.com', facts: scores(90, 50, 10, 25, 5) },
  { name: 'random label and deep nesting: nothing left', email: 'a@x7kq2m9vz3p8.a.b.c.mx-est.com', facts: { ...scores(85, 50, 10, 25, 0), ...DELIVERABLE } },

  { name: 'new domain registered today: no age points', email: 'a@mx-new0.com', facts: { ...scores(75, 50, 10, 0, 15), ...DELIVERABLE } },
  { name: 'new domain of 15 days: a quarter of the age weight', email: 'a@mx-new15.com', facts: scores(81, 50, 10, 6, 15) },
  { name: 'new domain of 29 days: just under half', email: 'a@mx-new29.com', facts: scores(87, 50, 10, 12, 15) },
  { name: 'new domain past 30 days (higher threshold): capped at half', email: 'a@mx-new45.com', facts: scores(88, 50, 10, 13, 15) },
  { name: 'age unknown: scored over the known 75 points', email: 'a@mx-noage.com', facts: { ...scores(100, 50, 10, null, 15), ...DELIVERABLE } },

  { name: 'MX but no A/AAAA: no address points', email: 'a@mx-noaddress.com', facts: scores(90, 50, 0, 25, 15) },
  { name: 'MX and only AAAA: address points', email: 'a@mx-aaaa.com', facts: scores(100, 50, 10, 25, 15) },
  { name: 'MX, address records not looked up: address part unknown', email: 'a@mx-aunknown.com', facts: scores(100, 50, null, 25, 15) },
  { name: 'MX hosts are IP addresses: half the MX weight', email: 'a@mx-iphosts.com', facts: { ...scores(75, 25, 10, 25, 15), ...DELIVERABLE } },

  { name: 'no MX, A fallback, established: deliverable through the A record', email: 'a@a-only.com', facts: { ...scores(50, 0, 10, 25, 15), ...DELIVERABLE } },
  {
    name: 'A fallback, new domain, random label: below min_score',
    email: 'a@x7kq2m9vz3p8.a-only-new.com',
    facts: { ...scores(15, 0, 10, 0, 5), ...UNDELIVERABLE },
  },
  { name: 'null MX: undeliverable whatever the score (40 here)', email: 'a@null-mx.com', facts: { ...scores(40, 0, 0, 25, 15), ...UNDELIVERABLE } },
  { name: 'NXDOMAIN, age unknown: scored over 75 points, undeliverable', email: 'a@nxdomain.com', facts: { ...scores(20, 0, 0, null, 15), ...UNDELIVERABLE } },

  { name: 'DNS not checked (SERVFAIL, timeout, offline): score unknown', email: 'a@servfail.com', facts: { ...scores(null, null, null, 25, 15), ...UNKNOWN } },
  { name: 'no MX and the A question unanswered: route unknown', email: 'a@a-unanswered.com', facts: { ...scores(null, 0, null, 25, 15), ...UNKNOWN } },
  { name: 'address literal: nothing to look up', email: 'a@[192.168.0.1]', facts: { ...scores(null, null, null, null, null), ...UNKNOWN } },
  { name: 'not an address', email: 'plainaddress', facts: { ...scores(null, null, null, null, null), ...UNKNOWN } },

  // Options.
  {
    name: 'min_score equal to the score: deliverable',
    email: 'a@a.b.mx-est.com',
    options: { min_score: 95 },
    facts: { deliverability_score: 95, ...DELIVERABLE },
  },
  {
    name: 'min_score one above the score: undeliverable',
    email: 'a@a.b.mx-est.com',
    options: { min_score: 96 },
    facts: { deliverability_score: 95, ...UNDELIVERABLE },
  },
  { name: 'min_score 0: a routable domain is always deliverable', email: 'a@x7kq2m9vz3p8.a-only-new.com', options: { min_score: 0 }, facts: DELIVERABLE },
  {
    name: 'only MX weighted: an A-only domain scores 0',
    email: 'a@a-only.com',
    options: { weights: { mx: 100, a: 0, age: 0, subdomain: 0 } },
    facts: { ...scores(0, 0, 0, 0, 0), ...UNDELIVERABLE },
  },
  {
    name: 'only MX weighted: a new domain scores 100',
    email: 'a@mx-new0.com',
    options: { weights: { mx: 100, a: 0, age: 0, subdomain: 0 } },
    facts: scores(100, 100, 0, 0, 0),
  },
  {
    name: 'weights summing to 50 are doubled',
    email: 'a@mx-est.com',
    options: { weights: { mx: 25, a: 5, age: 10, subdomain: 10 } },
    facts: scores(100, 50, 10, 20, 20),
  },
  {
    name: 'weights 1/1/1/0: scaled to 34/33/33/0 (largest remainder, MX first on a tie)',
    email: 'a@a-only.com',
    options: { weights: { mx: 1, a: 1, age: 1, subdomain: 0 } },
    facts: scores(66, 0, 33, 33, 0),
  },
  {
    name: 'only age weighted and age unknown: no score, unknown',
    email: 'a@mx-noage.com',
    options: { weights: { mx: 0, a: 0, age: 100, subdomain: 0 } },
    facts: { ...scores(null, 0, 0, null, 0), ...UNKNOWN },
  },
  {
    name: 'all weights zero: no score',
    email: 'a@mx-est.com',
    options: { weights: { mx: 0, a: 0, age: 0, subdomain: 0 } },
    facts: { deliverability_score: null, ...UNKNOWN },
  },
  {
    name: 'all weights zero, null MX: still undeliverable',
    email: 'a@null-mx.com',
    options: { weights: { mx: 0, a: 0, age: 0, subdomain: 0 } },
    facts: { deliverability_score: null, ...UNDELIVERABLE },
  },
];

describe('plugin deliverability', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const facts = await factsOf(row.email, row.options);
    expect(Object.fromEntries(Object.keys(row.facts).map((k) => [k, facts[k]]))).toEqual(row.facts);
  });

  it('keeps the score equal to the sum of the contributions when every part is known', async () => {
    for (const row of rows.filter((r) => !r.options)) {
      const f = await factsOf(row.email);
      const parts = [f.deliverability_mx_score, f.deliverability_a_score, f.deliverability_age_score, f.deliverability_subdomain_score];
      if (f.deliverability_score === null || parts.includes(null)) continue;
      expect(f.deliverability_score, row.name).toBe((parts as number[]).reduce((s, p) => s + p, 0));
    }
  });
});

function policyFor(config: Record<string, unknown>) {
  const doc = { version: '1', checks: { deliverability_score: { mode: 'hard', ...config } } };
  return compilePolicy('deliverability-test', parsePolicy('deliverability-test.json', JSON.stringify(doc)), catalog);
}

async function fired(email: string, config: Record<string, unknown> = {}): Promise<string[]> {
  const policy = policyFor(config);
  return (await evaluateFor(policy, input(email))).decision.fired.map((v) => `${v.source}:${v.name}`);
}

describe('deliverability_score check (no code: the action carries it)', () => {
  it.each([
    ['a@mx-est.com', {}, []],
    ['a@a-only.com', {}, []],
    ['a@x7kq2m9vz3p8.a-only-new.com', {}, ['check:deliverability_score']],
    ['a@null-mx.com', {}, ['check:deliverability_score']],
    ['a@nxdomain.com', {}, ['check:deliverability_score']],
    ['a@servfail.com', {}, []],
    ['a@a-unanswered.com', {}, []],
    ['a@[192.168.0.1]', {}, []],
    ['a@a.b.mx-est.com', { options: { min_score: 95 } }, []],
    ['a@a.b.mx-est.com', { options: { min_score: 96 } }, ['check:deliverability_score']],
    ['a@servfail.com', { on_unknown: 'block' }, ['unknown:deliverability_score']],
    ['a@mx-est.com', { on_unknown: 'block' }, []],
  ] as const)('%s %j fires %j', async (email, config, expected) => {
    expect(await fired(email, config)).toEqual(expected);
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
    expect(() => policyFor({ options })).toThrow(PolicyError);
  });
});
