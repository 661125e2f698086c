import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { blocklistLookup } from '../../src/network/blocklists.js';
import { createDnsLookup, type DnsService } from '../../src/network/dns.js';
import { OFFLINE } from '../../src/network/offline.js';
import { startDnsServer, type TestDnsServer, type Zone, type ZoneRecord } from '../../test/support/dns-server.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import knownAbuse from '../known-abuse/index.js';
import plugin from './index.js';

const ZONES = { domain: ['dbl.zone.test', 'rhsbl.zone.test'], ip: ['zen.zone.test'] };

const a = (...addresses: string[]) => ({ records: addresses.map((address): ZoneRecord => ({ type: 'A', address })) });

/** Two domain zones and an IP zone, as real zones answer: a listing is an A record in 127.0.0.0/8, no listing NXDOMAIN. */
const ZONE: Zone = {
  'spam-site.com.dbl.zone.test': a('127.0.1.2'),
  'phish-site.com.dbl.zone.test': a('127.0.1.4'),
  'malware-site.com.dbl.zone.test': a('127.0.1.5'),
  'botnet-site.com.dbl.zone.test': a('127.0.1.6'),
  'hacked-site.com.dbl.zone.test': a('127.0.1.102'),
  'hacked-site.co.uk.dbl.zone.test': a('127.0.1.104'),
  'odd-site.com.dbl.zone.test': a('127.0.1.77'),
  'several-site.com.dbl.zone.test': a('127.0.1.2', '127.0.1.5'),
  'public-resolver.com.dbl.zone.test': a('127.255.255.254'),
  'zone-typo.com.dbl.zone.test': a('127.255.255.252'),
  'too-many.com.dbl.zone.test': a('127.255.255.255'),
  'rewritten.com.dbl.zone.test': a('192.0.2.1'),
  'failing.com.dbl.zone.test': { rcode: 'SERVFAIL' },
  'silent.com.dbl.zone.test': { silent: true },
  // The second zone: its own code (unclassified), and a failure beside the first zone's answers.
  'other-zone.com.rhsbl.zone.test': a('127.0.0.2'),
  'half-down.com.rhsbl.zone.test': { rcode: 'SERVFAIL' },
  'spam-site.com.rhsbl.zone.test': { rcode: 'SERVFAIL' },
  'hacked-site.com.rhsbl.zone.test': { rcode: 'SERVFAIL' },
  // 81.2.69.x reversed under the IP zone.
  '142.69.2.81.zen.zone.test': a('127.0.0.4'),
  '143.69.2.81.zen.zone.test': a('127.0.0.10'),
  '144.69.2.81.zen.zone.test': a('127.0.0.10', '127.0.0.2'),
  '145.69.2.81.zen.zone.test': a('127.255.255.254'),
  '147.69.2.81.zen.zone.test': a('127.0.0.30'),
  // 2a00:1450:4001:81d::200e, its 32 nibbles reversed.
  'e.0.0.2.0.0.0.0.0.0.0.0.0.0.0.0.d.1.8.0.1.0.0.4.0.5.4.1.0.0.a.2.zen.zone.test': a('127.0.0.3'),
};

let server: TestDnsServer;
let dns: DnsService;

beforeAll(async () => {
  server = await startDnsServer(ZONE);
  dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
});
afterAll(async () => {
  dns.close();
  await server.close();
});

/** The real blocklist lookup over the real DNS lookup; each question gets a fresh request budget (the server starts after this is made). */
function networkWith(zones: typeof ZONES): NetworkAccess {
  const blocklists = () => blocklistLookup(zones, dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }));
  return { ...OFFLINE, enabled: true, blocklists: { domain: (d) => blocklists().domain(d), ip: (ip) => blocklists().ip(ip) } };
}
const network = networkWith(ZONES);

const domainListed = (category: string, zone = 'dbl.zone.test') => ({ dnsbl_domain_listed: true, dnsbl_domain_category: category, dnsbl_domain_zone: zone });
const domainClean = { dnsbl_domain_listed: false, dnsbl_domain_category: null, dnsbl_domain_zone: null };
const domainUnknown = { dnsbl_domain_listed: null, dnsbl_domain_category: null, dnsbl_domain_zone: null };
const ipListed = (category: string) => ({ dnsbl_ip_listed: true, dnsbl_ip_category: category, dnsbl_ip_zone: 'zen.zone.test' });
const ipUnknown = { dnsbl_ip_listed: null, dnsbl_ip_category: null, dnsbl_ip_zone: null };

testPlugin(
  plugin,
  [
    {
      name: 'listed by one zone, the other failing: listed',
      email: 'jane@spam-site.com',
      facts: { ...domainListed('spam'), ...ipUnknown },
      fires: ['dnsbl_domain'],
    },
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
    { name: 'not an address: nothing asked', email: 'jane', facts: { ...domainUnknown, ...ipUnknown }, fires: [] },
    { name: 'an address literal: nothing asked', email: 'jane@[81.2.69.142]', facts: domainUnknown, fires: [] },
    { name: 'XBL', email: 'jane@clean-site.com', ipv4: '81.2.69.142', facts: { ...domainClean, ...ipListed('exploited') }, fires: ['dnsbl_ip'] },
    {
      name: 'PBL only: an ordinary end-user range, not listed',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.143',
      facts: { dnsbl_ip_listed: false, dnsbl_ip_category: 'end_user_range', dnsbl_ip_zone: 'zen.zone.test' },
      fires: [],
    },
    { name: 'PBL and SBL: listed as SBL', email: 'jane@clean-site.com', ipv4: '81.2.69.144', facts: ipListed('spam_source'), fires: ['dnsbl_ip'] },
    { name: 'BCL', email: 'jane@clean-site.com', ipv4: '81.2.69.147', facts: ipListed('botnet_controller'), fires: ['dnsbl_ip'] },
    { name: 'IP zone refused: unknown', email: 'jane@clean-site.com', ipv4: '81.2.69.145', facts: ipUnknown, fires: [] },
    {
      name: 'IP not listed',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.146',
      facts: { dnsbl_ip_listed: false, dnsbl_ip_category: null, dnsbl_ip_zone: null },
      fires: [],
    },
    { name: 'IPv6, by its nibbles', email: 'jane@clean-site.com', ipv6: '2a00:1450:4001:81d::200e', facts: ipListed('snowshoe_spam'), fires: ['dnsbl_ip'] },
    {
      name: 'IPv4 clean, IPv6 listed: listed',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.146',
      ipv6: '2a00:1450:4001:81d::200e',
      facts: ipListed('snowshoe_spam'),
      fires: ['dnsbl_ip'],
    },
    { name: 'a private IP is not asked', email: 'jane@clean-site.com', ipv4: '10.0.0.1', facts: ipUnknown, fires: [] },
    {
      name: 'both listed: both checks fire',
      email: 'jane@spam-site.com',
      ipv4: '81.2.69.142',
      facts: { ...domainListed('spam'), ...ipListed('exploited') },
      fires: ['dnsbl_domain', 'dnsbl_ip'],
    },
  ],
  { network },
);

describe('dnsbl questions', () => {
  it('asks each zone once per name, the registrable domain and the reversed IP', async () => {
    const before = server.questions.length;
    await computeFacts(plugin, { email: 'jane@a.b.asked-site.com', ipv4: '81.2.69.148' }, { network });
    expect(
      server.questions
        .slice(before)
        .map((q) => `${q.type} ${q.name}`)
        .sort(),
    ).toEqual(['A 148.69.2.81.zen.zone.test', 'A asked-site.com.dbl.zone.test', 'A asked-site.com.rhsbl.zone.test']);
  });

  it('asks nothing for private, loopback and documentation addresses', async () => {
    const before = server.questions.length;
    for (const ipv4 of ['10.1.2.3', '127.0.0.2', '192.0.2.7', '100.64.0.1']) {
      expect(await computeFacts(plugin, { email: 'jane', ipv4 }, { network })).toMatchObject(ipUnknown);
    }
    expect(await computeFacts(plugin, { email: 'jane', ipv6: 'fd00::1' }, { network })).toMatchObject(ipUnknown);
    expect(server.questions.length).toBe(before);
  });

  it('without zones, or with network checks off, asks nothing and knows nothing', async () => {
    const before = server.questions.length;
    const none = networkWith({ domain: [], ip: [] });
    const unknown = { ...domainUnknown, ...ipUnknown };
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com', ipv4: '81.2.69.142' }, { network: none })).toMatchObject(unknown);
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com', ipv4: '81.2.69.142' }, { network: { ...network, enabled: false } })).toMatchObject(
      unknown,
    );
    expect(server.questions.length).toBe(before);
  });

  it('is unknown when the lookup throws (a broken implementation)', async () => {
    const broken: NetworkAccess = { ...network, blocklists: { domain: () => Promise.reject(new Error('x')), ip: () => Promise.reject(new Error('x')) } };
    expect(await computeFacts(plugin, { email: 'jane@spam-site.com', ipv4: '81.2.69.142' }, { network: broken })).toMatchObject({
      ...domainUnknown,
      ...ipUnknown,
    });
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
