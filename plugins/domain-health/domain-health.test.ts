// domain-health reads the dns, domain-age, website and subdomain facts. Every plugin is the real one: dns,
// domain-age and website answer from network answers per domain (the form a policy test declares), at a
// fixed time, so these tests need no network. The answers are checked below to give the facts meant.
import { describe, expect, it } from 'vitest';
import type { FactValues } from '../../src/engine/plugin.js';
import { PolicyError } from '../../src/policy/errors.js';
import type { DomainAnswers } from '../../src/policy/types.js';
import { dnsFacts } from '../../test/support/dns-facts.js';
import { checksPolicy, computeFacts, decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import dns from '../dns/index.js';
import domainAge from '../domain-age/index.js';
import website from '../website/index.js';
import domainHealth from './index.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');
const DAY = 86_400_000;

// DNS answers of each kind of domain (MX hosts, A and AAAA records; 'error': the question failed).
type Answers = Exclude<DomainAnswers, string>;
const MX_OK: Answers = { mx: ['mx1.mail.example', 'mx2.mail.example'], a: ['192.0.2.1'] };
const MX_IP_HOSTS: Answers = { mx: ['192.0.2.25'], a: ['192.0.2.1'] };
const A_ONLY: Answers = { a: ['192.0.2.1'] };
const NULL_MX: Answers = { mx: ['.'], a: ['192.0.2.1'] };
const NO_ROUTE: Answers = {};
const NOT_CHECKED: Answers = { mx: 'error', a: 'error', aaaa: 'error' };
const A_UNANSWERED: Answers = { a: 'error' };

// Registration (RDAP) of a registrable domain, days before NOW; no `registered`: the age is unknown.
const registered = (days: number) => ({ registered: new Date(NOW - days * DAY).toISOString() });
const OLD = registered(4000);
const NEW = registered(3);
// Whether the address's domain serves a website; no `website`: not probed.
const SITE = { website: true };
const NO_SITE = { website: false };

/** What the network answers; registration is asked of the registrable domain, DNS and website of the address's domain. */
const NETWORK: Record<string, DomainAnswers> = {
  // dead
  'null-mx.com': { ...NULL_MX, ...OLD, ...SITE },
  'nxdomain.com': 'nxdomain',
  'no-route-new.com': { ...NO_ROUTE, ...NEW, ...NO_SITE },
  // unknown
  'servfail.com': { ...NOT_CHECKED, ...OLD, ...SITE },
  'a-unanswered.com': { ...A_UNANSWERED, ...NEW, ...NO_SITE },
  // suspicious
  'new-nosite.com': { ...MX_OK, ...NEW, ...NO_SITE },
  'x7kq2m9vz3p8.new-site.com': { ...MX_OK, ...SITE },
  '550e8400-e29b-41d4-a716-446655440000.new-site.com': { ...MX_OK, ...SITE },
  'a-only-new.com': { ...A_ONLY, ...NEW, ...NO_SITE },
  // risky
  'new-site.com': { ...MX_OK, ...NEW, ...SITE },
  'new-unprobed.com': { ...MX_OK, ...NEW },
  'x7kq2m9vz3p8.old.com': { ...MX_OK, ...SITE },
  'a.b.c.d.old.com': { ...MX_OK, ...SITE },
  'a-only.com': { ...A_ONLY, ...OLD, ...SITE },
  'mx-iphosts.com': { ...MX_IP_HOSTS, ...OLD, ...SITE },
  // excellent
  'old.com': { ...MX_OK, ...OLD, ...SITE },
  'mail.old.com': { ...MX_OK, ...SITE },
  'a.b.c.old.com': { ...MX_OK, ...SITE },
  'year.com': { ...MX_OK, ...registered(365), ...SITE },
  // healthy
  'under-year.com': { ...MX_OK, ...registered(364), ...SITE },
  'old-nosite.com': { ...MX_OK, ...OLD, ...NO_SITE },
  'old-unprobed.com': { ...MX_OK, ...OLD },
  'noage.com': { ...MX_OK, ...SITE },
  'month.com': { ...MX_OK, ...registered(45), ...SITE },
};
const world = { network: NETWORK, now: () => NOW };

const MX_FACTS = dnsFacts(2, 'valid', 'not_needed', 1, 0);
const age = (days: number | null, signal: string) => ({ domain_age_days: days, domain_age_signal: signal });

describe('the network answers give the dns, domain-age and website facts the health is about', () => {
  it.each<[string, FactValues, FactValues, boolean | null]>([
    ['a@null-mx.com', dnsFacts(0, 'invalid', 'invalid', 1, 0, true), age(4000, 'established'), true],
    ['a@nxdomain.com', dnsFacts(0, 'invalid', 'invalid', 0, 0), age(null, 'unknown'), null],
    ['a@no-route-new.com', dnsFacts(0, 'invalid', 'invalid', 0, 0), age(3, 'new_domain'), false],
    ['a@servfail.com', dnsFacts(null, 'not_checked', null, null, null, null, null), age(4000, 'established'), true],
    ['a@a-unanswered.com', dnsFacts(0, 'invalid', null, null, 0), age(3, 'new_domain'), false],
    ['a@x7kq2m9vz3p8.new-site.com', MX_FACTS, age(3, 'new_domain'), true],
    ['a@a-only-new.com', dnsFacts(0, 'invalid', 'valid', 1, 0), age(3, 'new_domain'), false],
    ['a@new-unprobed.com', MX_FACTS, age(3, 'new_domain'), null],
    ['a@a.b.c.d.old.com', MX_FACTS, age(4000, 'established'), true],
    ['a@mx-iphosts.com', dnsFacts(1, 'valid', 'not_needed', 1, 0, false, true), age(4000, 'established'), true],
    ['a@year.com', MX_FACTS, age(365, 'established'), true],
    ['a@under-year.com', MX_FACTS, age(364, 'established'), true],
    ['a@old-nosite.com', MX_FACTS, age(4000, 'established'), false],
    ['a@noage.com', MX_FACTS, age(null, 'unknown'), true],
    ['a@month.com', MX_FACTS, age(45, 'established'), true],
  ])('%s', async (email, dnsExpected, ageExpected, hasWebsite) => {
    expect(await computeFacts(dns, { email }, world)).toMatchObject(dnsExpected);
    expect(await computeFacts(domainAge, { email }, world)).toMatchObject(ageExpected);
    expect(await computeFacts(website, { email }, world)).toEqual({ has_website: hasWebsite });
  });
});

const FIRES = ['domain_health'];
const is = (health: string | null) => ({ domain_health: health });

testPlugin(
  domainHealth,
  [
    // Rows of the README's table, in order; the first that holds decides. Flagged by default: dead, suspicious.
    { name: 'null MX, even on an old domain with a website', email: 'a@null-mx.com', facts: is('dead'), fires: FIRES },
    { name: 'NXDOMAIN (no MX, no A/AAAA)', email: 'a@nxdomain.com', facts: is('dead'), fires: FIRES },
    { name: 'no route beats new-and-no-website', email: 'a@no-route-new.com', facts: is('dead'), fires: FIRES },
    { name: 'DNS not checked', email: 'a@servfail.com', facts: is('unknown'), fires: [] },
    { name: 'no MX and the A question unanswered', email: 'a@a-unanswered.com', facts: is('unknown'), fires: [] },
    { name: 'new domain without a website', email: 'a@new-nosite.com', facts: is('suspicious'), fires: FIRES },
    { name: 'new domain with a random subdomain label', email: 'a@x7kq2m9vz3p8.new-site.com', facts: is('suspicious'), fires: FIRES },
    {
      name: 'new domain with a UUID subdomain label',
      email: 'a@550e8400-e29b-41d4-a716-446655440000.new-site.com',
      facts: is('suspicious'),
      fires: FIRES,
    },
    { name: 'new domain, A fallback only, no website', email: 'a@a-only-new.com', facts: is('suspicious'), fires: FIRES },
    { name: 'new domain with a website', email: 'a@new-site.com', facts: is('risky'), fires: [] },
    { name: 'new domain, website not probed (WEB_CHECKS=off)', email: 'a@new-unprobed.com', facts: is('risky'), fires: [] },
    { name: 'old domain, random subdomain label', email: 'a@x7kq2m9vz3p8.old.com', facts: is('risky'), fires: [] },
    { name: 'old domain, deep nesting (4 levels)', email: 'a@a.b.c.d.old.com', facts: is('risky'), fires: [] },
    { name: 'mail only through the A fallback', email: 'a@a-only.com', facts: is('risky'), fires: [] },
    { name: 'MX hosts are IP addresses', email: 'a@mx-iphosts.com', facts: is('risky'), fires: [] },
    { name: 'MX, 4000 days old, website', email: 'a@old.com', facts: is('excellent'), fires: [] },
    { name: 'one subdomain level', email: 'a@mail.old.com', facts: is('excellent'), fires: [] },
    { name: 'three levels, below deep nesting', email: 'a@a.b.c.old.com', facts: is('excellent'), fires: [] },
    { name: 'exactly 365 days old', email: 'a@year.com', facts: is('excellent'), fires: [] },
    { name: '364 days old', email: 'a@under-year.com', facts: is('healthy'), fires: [] },
    { name: 'old domain without a website', email: 'a@old-nosite.com', facts: is('healthy'), fires: [] },
    { name: 'old domain, website not probed', email: 'a@old-unprobed.com', facts: is('healthy'), fires: [] },
    { name: 'age unknown (no RDAP for the TLD)', email: 'a@noage.com', facts: is('healthy'), fires: [] },
    { name: 'address literal: nothing to look up', email: 'a@[192.168.0.1]', facts: is(null), fires: [] },
    { name: 'not an address', email: 'plainaddress', facts: is(null), fires: [] },

    // excellent_min_days.
    {
      name: 'excellent_min_days 45, 45 days old',
      email: 'a@month.com',
      options: { domain_health: { excellent_min_days: 45 } },
      facts: is('excellent'),
      fires: [],
    },
    {
      name: 'excellent_min_days 46, 45 days old',
      email: 'a@month.com',
      options: { domain_health: { excellent_min_days: 46 } },
      facts: is('healthy'),
      fires: [],
    },
    {
      name: 'excellent_min_days 4001, 4000 days old',
      email: 'a@old.com',
      options: { domain_health: { excellent_min_days: 4001 } },
      facts: is('healthy'),
      fires: [],
    },
    {
      name: 'excellent_min_days 0, a new domain',
      email: 'a@new-site.com',
      options: { domain_health: { excellent_min_days: 0 } },
      facts: is('risky'),
      fires: [],
    },

    // flag: the values the check fires on.
    { name: 'flag risky: a risky domain', email: 'a@new-site.com', options: { domain_health: { flag: ['risky'] } }, facts: is('risky'), fires: FIRES },
    { name: 'flag risky: a dead domain', email: 'a@null-mx.com', options: { domain_health: { flag: ['risky'] } }, facts: is('dead'), fires: [] },
    { name: 'flag unknown: DNS not checked', email: 'a@servfail.com', options: { domain_health: { flag: ['unknown'] } }, facts: is('unknown'), fires: FIRES },
    {
      name: 'flag unknown: no domain (null) never fires',
      email: 'a@[192.168.0.1]',
      options: { domain_health: { flag: ['unknown'] } },
      facts: is(null),
      fires: [],
    },
    { name: 'flag empty: nothing fires', email: 'a@null-mx.com', options: { domain_health: { flag: [] } }, facts: is('dead'), fires: [] },
  ],
  world,
);

describe('domain_health check (code poor_domain_health)', () => {
  it('takes its action when it fires, naming its code', async () => {
    const decide = (email: string) => decisionFor({ domain_health: { mode: 'hard', action: 'block' } }, email, world);
    expect(await decide('a@null-mx.com')).toMatchObject({ action: 'block', errors: ['poor_domain_health'], warnings: [] });
    expect(await decide('a@old.com')).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });

  it.each([
    ['an unknown value in flag', { flag: ['bad'] }],
    ['a value twice in flag', { flag: ['dead', 'dead'] }],
    ['flag not a list', { flag: 'dead' }],
    ['a negative excellent_min_days', { excellent_min_days: -1 }],
    ['an unknown option', { min_score: 40 }],
  ])('refuses options with %s', (_what, options) => {
    expect(() => checksPolicy({ domain_health: { mode: 'hard', options } })).toThrow(PolicyError);
  });
});
