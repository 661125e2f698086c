// domain-health reads the dns, domain-age, website and subdomain facts. The dns, domain-age and website

// plugins are replaced by stand-ins (same ids, facts and types) answering from a table per domain, so
// these tests need no network; structure, tld and subdomain are the real plugins.
import { describe, expect, it } from 'vitest';
import domainHealth from '../../plugins/domain-health/index.js';
import type { CheckOptions, FactValues } from '../../src/engine/plugin.js';
import { PolicyRunner } from '../../src/engine/run.js';
import { compilePolicy } from '../../src/policy/compile.js';
import { PolicyError } from '../../src/policy/errors.js';
import { parsePolicy } from '../../src/policy/load.js';
import { standInCatalog, type Zone } from '../support/network-stand-ins.js';
import { evaluateFor } from '../support/plugin-tester.js';

const dnsFacts = (mxCount: number, status: string, fallback: string | null, a: number, nullMx = false, ipHosts = false): FactValues => ({
  mx_record_count: mxCount,
  mx_record_status: status,
  a_record_fallback: fallback,
  a_record_count: a,
  aaaa_record_count: 0,
  has_null_mx: nullMx,
  mx_hosts_are_ips: ipHosts,
});
const MX_OK = dnsFacts(2, 'valid', 'not_needed', 1);
const MX_IP_HOSTS = dnsFacts(1, 'valid', 'not_needed', 1, false, true);
const A_ONLY = dnsFacts(0, 'invalid', 'valid', 1);
const NULL_MX = dnsFacts(0, 'invalid', 'invalid', 1, true);
const NO_ROUTE = dnsFacts(0, 'invalid', 'invalid', 0);
const NOT_CHECKED: FactValues = { mx_record_status: 'not_checked' };
const A_UNANSWERED: FactValues = { mx_record_count: 0, mx_record_status: 'invalid', has_null_mx: false };

const established = (days: number) => ({ domain_age_days: days, domain_age_signal: 'established', domain_registered_at: '2016-01-01T00:00:00.000Z' });
const OLD = established(4000);
const NEW = { domain_age_days: 3, domain_age_signal: 'new_domain', domain_registered_at: '2026-11-19T00:00:00.000Z' };
const AGE_UNKNOWN = { domain_age_days: null, domain_age_signal: 'unknown', domain_registered_at: null };
const AGE_DAYS_MISSING = { domain_age_days: null, domain_age_signal: 'established', domain_registered_at: null };

/** Facts per domain; a domain not listed has null facts (as for an address literal). */
const ZONES: Record<string, Zone> = {
  // dead
  'null-mx.com': { dns: NULL_MX, age: OLD, website: true },
  'nxdomain.com': { dns: NO_ROUTE, age: AGE_UNKNOWN, website: null },
  'no-route-new.com': { dns: NO_ROUTE, age: NEW, website: false },
  // unknown
  'servfail.com': { dns: NOT_CHECKED, age: OLD, website: true },
  'a-unanswered.com': { dns: A_UNANSWERED, age: NEW, website: false },
  // suspicious
  'new-nosite.com': { dns: MX_OK, age: NEW, website: false },
  'x7kq2m9vz3p8.new-site.com': { dns: MX_OK, age: NEW, website: true },
  '550e8400-e29b-41d4-a716-446655440000.new-site.com': { dns: MX_OK, age: NEW, website: true },
  'a-only-new.com': { dns: A_ONLY, age: NEW, website: false },
  // risky
  'new-site.com': { dns: MX_OK, age: NEW, website: true },
  'new-unprobed.com': { dns: MX_OK, age: NEW, website: null },
  'x7kq2m9vz3p8.old.com': { dns: MX_OK, age: OLD, website: true },
  'a.b.c.d.old.com': { dns: MX_OK, age: OLD, website: true },
  'a-only.com': { dns: A_ONLY, age: OLD, website: true },
  'mx-iphosts.com': { dns: MX_IP_HOSTS, age: OLD, website: true },
  // excellent
  'old.com': { dns: MX_OK, age: OLD, website: true },
  'mail.old.com': { dns: MX_OK, age: OLD, website: true },
  'a.b.c.old.com': { dns: MX_OK, age: OLD, website: true },
  'year.com': { dns: MX_OK, age: established(365), website: true },
  // healthy
  'under-year.com': { dns: MX_OK, age: established(364), website: true },
  'old-nosite.com': { dns: MX_OK, age: OLD, website: false },
  'old-unprobed.com': { dns: MX_OK, age: OLD, website: null },
  'noage.com': { dns: MX_OK, age: AGE_UNKNOWN, website: true },
  'nodays.com': { dns: MX_OK, age: AGE_DAYS_MISSING, website: true },
  'month.com': { dns: MX_OK, age: established(45), website: true },
};

const catalog = standInCatalog(ZONES);
const runner = new PolicyRunner(catalog, []);
const noVelocity = { byIp: async () => ({ emails: [], distinctEmails: 0, total: 0, since: [] }) };
const input = (email: string) => ({ email, ipv4: null, ipv6: null, softCheck: false, projectId: 'test-project' });

async function healthOf(email: string, options: CheckOptions = {}): Promise<unknown> {
  const merged = { domain_health: { ...domainHealth.checks.domain_health!.defaults, ...options } };
  const errors: unknown[] = [];
  const outcome = await runner.run({
    input: input(email),
    options: merged,
    services: { velocity: noVelocity, now: Date.now, onPluginError: (_id, e) => errors.push(e) },
  });
  const value = await outcome.fact('domain_health');
  if (errors.length > 0) throw errors[0];
  return value;
}

describe('plugin domain-health', () => {
  it.each([
    // Rows of the README's table, in order; the first that holds decides.
    ['null MX, even on an old domain with a website', 'a@null-mx.com', 'dead'],
    ['NXDOMAIN (no MX, no A/AAAA)', 'a@nxdomain.com', 'dead'],
    ['no route beats new-and-no-website', 'a@no-route-new.com', 'dead'],
    ['DNS not checked', 'a@servfail.com', 'unknown'],
    ['no MX and the A question unanswered', 'a@a-unanswered.com', 'unknown'],
    ['new domain without a website', 'a@new-nosite.com', 'suspicious'],
    ['new domain with a random subdomain label', 'a@x7kq2m9vz3p8.new-site.com', 'suspicious'],
    ['new domain with a UUID subdomain label', 'a@550e8400-e29b-41d4-a716-446655440000.new-site.com', 'suspicious'],
    ['new domain, A fallback only, no website', 'a@a-only-new.com', 'suspicious'],
    ['new domain with a website', 'a@new-site.com', 'risky'],
    ['new domain, website not probed (WEB_CHECKS=off)', 'a@new-unprobed.com', 'risky'],
    ['old domain, random subdomain label', 'a@x7kq2m9vz3p8.old.com', 'risky'],
    ['old domain, deep nesting (4 levels)', 'a@a.b.c.d.old.com', 'risky'],
    ['mail only through the A fallback', 'a@a-only.com', 'risky'],
    ['MX hosts are IP addresses', 'a@mx-iphosts.com', 'risky'],
    ['MX, 4000 days old, website', 'a@old.com', 'excellent'],
    ['one subdomain level', 'a@mail.old.com', 'excellent'],
    ['three levels, below deep nesting', 'a@a.b.c.old.com', 'excellent'],
    ['exactly 365 days old', 'a@year.com', 'excellent'],
    ['364 days old', 'a@under-year.com', 'healthy'],
    ['old domain without a website', 'a@old-nosite.com', 'healthy'],
    ['old domain, website not probed', 'a@old-unprobed.com', 'healthy'],
    ['age unknown (no RDAP for the TLD)', 'a@noage.com', 'healthy'],
    ['established but no day count', 'a@nodays.com', 'healthy'],
    ['address literal: nothing to look up', 'a@[192.168.0.1]', null],
    ['not an address', 'plainaddress', null],
  ])('%s: %s is %s', async (_name, email, expected) => {
    expect(await healthOf(email)).toBe(expected);
  });

  it.each([
    ['a@month.com', 45, 'excellent'],
    ['a@month.com', 46, 'healthy'],
    ['a@old.com', 4001, 'healthy'],
    ['a@new-site.com', 0, 'risky'],
  ])('%s with excellent_min_days %d is %s', async (email, days, expected) => {
    expect(await healthOf(email, { excellent_min_days: days })).toBe(expected);
  });
});

function policyFor(options?: Record<string, unknown>) {
  const doc = { version: '1', checks: { domain_health: { mode: 'hard', ...(options ? { options } : {}) } } };
  return compilePolicy('domain-health-test', parsePolicy('domain-health-test.json', JSON.stringify(doc)), catalog);
}

async function fires(email: string, options?: Record<string, unknown>): Promise<boolean> {
  const policy = policyFor(options);
  return (await evaluateFor(policy, input(email))).decision.fired.some((v) => v.name === 'domain_health');
}

describe('domain_health check (no code: the action carries it)', () => {
  it.each([
    ['a@null-mx.com', undefined, true],
    ['a@new-nosite.com', undefined, true],
    ['a@new-site.com', undefined, false],
    ['a@old.com', undefined, false],
    ['a@old-nosite.com', undefined, false],
    ['a@servfail.com', undefined, false],
    ['a@[192.168.0.1]', undefined, false],
    ['a@new-site.com', { flag: ['risky'] }, true],
    ['a@null-mx.com', { flag: ['risky'] }, false],
    ['a@servfail.com', { flag: ['unknown'] }, true],
    ['a@[192.168.0.1]', { flag: ['unknown'] }, false],
    ['a@null-mx.com', { flag: [] }, false],
  ])('%s with %j fires: %s', async (email, options, expected) => {
    expect(await fires(email, options)).toBe(expected);
  });

  it.each([
    ['an unknown value in flag', { flag: ['bad'] }],
    ['a value twice in flag', { flag: ['dead', 'dead'] }],
    ['flag not a list', { flag: 'dead' }],
    ['a negative excellent_min_days', { excellent_min_days: -1 }],
    ['an unknown option', { min_score: 40 }],
  ])('refuses options with %s', (_what, options) => {
    expect(() => policyFor(options)).toThrow(PolicyError);
  });
});
