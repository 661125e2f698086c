import { describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { blocklistNetwork, blocklistZones } from '../../test/support/blocklist-zone.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import knownAbuse from '../known-abuse/index.js';
import plugin from './index.js';

const zones = blocklistZones();
const network = zones.network;

const domainListed = (category: string, zone = 'dbl.zone.test') => ({ dnsbl_domain_listed: true, dnsbl_domain_category: category, dnsbl_domain_zone: zone });
const domainClean = { dnsbl_domain_listed: false, dnsbl_domain_category: null, dnsbl_domain_zone: null };
const domainUnknown = { dnsbl_domain_listed: null, dnsbl_domain_category: null, dnsbl_domain_zone: null };

testPlugin(
  plugin,
  [
    { name: 'listed by one zone, the other failing: listed', email: 'jane@spam-site.com', facts: domainListed('spam'), fires: ['dnsbl_domain'] },
    { email: 'jane@phish-site.com', facts: domainListed('phish'), fires: ['dnsbl_domain'] },
    { email: 'jane@malware-site.com', facts: domainListed('malware'), fires: ['dnsbl_domain'] },
    { email: 'jane@botnet-site.com', facts: domainListed('botnet'), fires: ['dnsbl_domain'] },
    { name: 'a code the table does not know: listed, unclassified', email: 'jane@odd-site.com', facts: domainListed('unclassified'), fires: ['dnsbl_domain'] },
    { name: 'two codes: the most severe', email: 'jane@several-site.com', facts: domainListed('malware'), fires: ['dnsbl_domain'] },
    { name: 'a subdomain: its registrable domain is asked', email: 'jane@mail.spam-site.com', facts: domainListed('spam'), fires: ['dnsbl_domain'] },
    { name: 'capitals', email: 'jane@Phish-Site.COM', facts: domainListed('phish'), fires: ['dnsbl_domain'] },
    { name: 'listed by the second zone only', email: 'jane@other-zone.com', facts: domainListed('unclassified', 'rhsbl.zone.test'), fires: ['dnsbl_domain'] },
    {
      name: 'abused legit: the category, but no abuse listing',
      email: 'jane@hacked-site.co.uk',
      facts: { dnsbl_domain_listed: false, dnsbl_domain_category: 'abused_legit', dnsbl_domain_zone: 'dbl.zone.test' },
      fires: [],
    },
    { name: 'NXDOMAIN in every zone: not listed', email: 'jane@clean-site.com', facts: domainClean, fires: [] },
    { name: 'a public resolver refused (127.255.255.254): unknown', email: 'jane@public-resolver.com', facts: domainUnknown, fires: [] },
    { name: 'a typo in the zone name (127.255.255.252): unknown', email: 'jane@zone-typo.com', facts: domainUnknown, fires: [] },
    { name: 'excessive queries (127.255.255.255): unknown', email: 'jane@too-many.com', facts: domainUnknown, fires: [] },
    { name: 'an answer outside 127/8 (a rewriting resolver): unknown', email: 'jane@rewritten.com', facts: domainUnknown, fires: [] },
    { name: 'SERVFAIL: unknown', email: 'jane@failing.com', facts: domainUnknown, fires: [] },
    { name: 'a silent zone: unknown after the timeout', email: 'jane@silent.com', facts: domainUnknown, fires: [] },
    { name: 'one zone clean, the other failing: unknown', email: 'jane@half-down.com', facts: domainUnknown, fires: [] },
    {
      name: 'abused legit, the other zone failing: unknown, with the category',
      email: 'jane@hacked-site.com',
      facts: { dnsbl_domain_listed: null, dnsbl_domain_category: 'abused_legit', dnsbl_domain_zone: 'dbl.zone.test' },
      fires: [],
    },
    { name: 'not an address: nothing asked', email: 'jane', facts: domainUnknown, fires: [] },
    { name: 'an address literal: nothing asked', email: 'jane@[81.2.69.142]', facts: domainUnknown, fires: [] },
  ],
  { network },
);

describe('dnsbl questions', () => {
  it('asks each domain zone once, about the registrable domain, and never an IP zone', async () => {
    const before = zones.server.questions.length;
    await computeFacts(plugin, { email: 'jane@a.b.asked-site.com', ipv4: '81.2.69.148' }, { network });
    expect(
      zones.server.questions
        .slice(before)
        .map((q) => `${q.type} ${q.name}`)
        .sort(),
    ).toEqual(['A asked-site.com.dbl.zone.test', 'A asked-site.com.rhsbl.zone.test']);
  });

  it('without zones, or with network checks off, asks nothing and knows nothing', async () => {
    const before = zones.server.questions.length;
    const none = blocklistNetwork(() => zones.dns, { domain: [], ip: [] });
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com' }, { network: none })).toMatchObject(domainUnknown);
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com' }, { network: { ...network, enabled: false } })).toMatchObject(domainUnknown);
    expect(zones.server.questions.length).toBe(before);
  });

  it('is unknown when the lookup throws (a broken implementation)', async () => {
    const broken: NetworkAccess = { ...network, blocklists: { domain: () => Promise.reject(new Error('x')), ip: () => Promise.reject(new Error('x')) } };
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com' }, { network: broken })).toMatchObject(domainUnknown);
  });
});

// known-abuse ORs in the DNS blocklists' abuse listings; the project's exemptions still win.
testPlugin(
  knownAbuse,
  [
    {
      name: 'a DNSBL abuse listing is known abuse',
      email: 'jane@spam-site.com',
      facts: { is_known_abuse_domain: true, known_abuse_match: 'spam-site.com' },
      fires: ['known_abuse_domain'],
    },
    {
      name: 'listed under a subdomain: the registrable domain matches',
      email: 'jane@mail.spam-site.com',
      facts: { is_known_abuse_domain: true, known_abuse_match: 'spam-site.com' },
      fires: ['known_abuse_domain'],
    },
    { name: 'abused legit is no known abuse', email: 'jane@hacked-site.co.uk', facts: { is_known_abuse_domain: false, known_abuse_match: null }, fires: [] },
    { name: 'not listed', email: 'jane@clean-site.com', facts: { is_known_abuse_domain: false, known_abuse_match: null }, fires: [] },
    {
      name: 'a zone that cannot tell: not known (the DNSBL fact is the unknown one)',
      email: 'jane@public-resolver.com',
      facts: { is_known_abuse_domain: false, known_abuse_match: null },
      fires: [],
    },
    {
      name: 'the project exempts a listed domain',
      email: 'jane@spam-site.com',
      options: { known_abuse_domain: { exempt: ['spam-site.com'] } },
      facts: { is_known_abuse_domain: false, known_abuse_match: null },
      fires: [],
    },
    {
      name: "the project's own addition comes first",
      email: 'jane@mail.spam-site.com',
      options: { known_abuse_domain: { add: ['mail.spam-site.com'] } },
      facts: { is_known_abuse_domain: true, known_abuse_match: 'mail.spam-site.com' },
      fires: ['known_abuse_domain'],
    },
  ],
  { network },
);
