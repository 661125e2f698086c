import { describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { blocklistNetwork, blocklistZones } from '../../test/support/blocklist-zone.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import risk from '../risk/index.js';
import plugin from './index.js';

const zones = blocklistZones();
const network = zones.network;

const ipListed = (category: string) => ({ dnsbl_ip_listed: true, dnsbl_ip_category: category, dnsbl_ip_zone: 'zen.zone.test' });
const ipUnknown = { dnsbl_ip_listed: null, dnsbl_ip_category: null, dnsbl_ip_zone: null };

testPlugin(
  plugin,
  [
    { name: 'XBL', email: 'jane@clean-site.com', ipv4: '81.2.69.142', facts: ipListed('exploited'), fires: ['dnsbl_ip'] },
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
    { name: 'no IP: nothing asked', email: 'jane@clean-site.com', facts: ipUnknown, fires: [] },
    { name: 'an invalid address does not matter: the IP is asked', email: 'jane', ipv4: '81.2.69.142', facts: ipListed('exploited'), fires: ['dnsbl_ip'] },
  ],
  { network },
);

describe('dnsbl-ip questions', () => {
  it('asks the reversed IP under each IP zone, never a domain zone', async () => {
    const before = zones.server.questions.length;
    await computeFacts(plugin, { email: 'jane@asked-site.com', ipv4: '81.2.69.148' }, { network });
    expect(zones.server.questions.slice(before).map((q) => `${q.type} ${q.name}`)).toEqual(['A 148.69.2.81.zen.zone.test']);
  });

  it('asks nothing for private, loopback, shared and documentation addresses', async () => {
    const before = zones.server.questions.length;
    for (const ipv4 of ['10.1.2.3', '127.0.0.2', '192.0.2.7', '100.64.0.1']) {
      expect(await computeFacts(plugin, { email: 'jane', ipv4 }, { network })).toMatchObject(ipUnknown);
    }
    expect(await computeFacts(plugin, { email: 'jane', ipv6: 'fd00::1' }, { network })).toMatchObject(ipUnknown);
    expect(zones.server.questions.length).toBe(before);
  });

  it('without zones, or with network checks off, asks nothing and knows nothing', async () => {
    const before = zones.server.questions.length;
    const none = blocklistNetwork(() => zones.dns, { domain: [], ip: [] });
    expect(await computeFacts(plugin, { email: 'jane', ipv4: '81.2.69.142' }, { network: none })).toMatchObject(ipUnknown);
    expect(await computeFacts(plugin, { email: 'jane', ipv4: '81.2.69.142' }, { network: { ...network, enabled: false } })).toMatchObject(ipUnknown);
    expect(zones.server.questions.length).toBe(before);
  });

  it('is unknown when the lookup throws (a broken implementation)', async () => {
    const broken: NetworkAccess = { ...network, blocklists: { domain: () => Promise.reject(new Error('x')), ip: () => Promise.reject(new Error('x')) } };
    expect(await computeFacts(plugin, { email: 'jane', ipv4: '81.2.69.142' }, { network: broken })).toMatchObject(ipUnknown);
  });
});

// The risk score weighs an IP listing only when a policy gives it a weight (0 by default: the IP is then not asked).
const weighted = { risk_score: { weights: { dnsbl_ip: 60 } } };
testPlugin(
  risk,
  [
    {
      name: 'a listed IP, weighted: its weight, high',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.142',
      options: weighted,
      facts: { risk_score: 60, risk_level: 'high', risk_breakdown_signals: 'dnsbl_ip' },
      fires: ['risk_score'],
    },
    {
      name: 'an end-user range, weighted: nothing',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.143',
      options: weighted,
      facts: { risk_score: 0, risk_breakdown_signals: null },
      fires: [],
    },
    {
      name: 'a listed IP, not weighted: nothing',
      email: 'jane@clean-site.com',
      ipv4: '81.2.69.142',
      facts: { risk_score: 0, risk_breakdown_signals: null },
      fires: [],
    },
    {
      name: 'a listed domain counts as known abuse',
      email: 'jane@spam-site.com',
      facts: { risk_score: 50, risk_breakdown_failures: 'known_abuse_domain:50' },
      fires: [],
    },
  ],
  { network },
);

describe('risk and the IP zones', () => {
  it('asks no IP zone while dnsbl_ip weighs 0', async () => {
    const before = zones.server.count('149.69.2.81.zen.zone.test');
    await computeFacts(risk, { email: 'jane@clean-site.com', ipv4: '81.2.69.149' }, { network });
    expect(zones.server.count('149.69.2.81.zen.zone.test')).toBe(before);
    await computeFacts(risk, { email: 'jane@clean-site.com', ipv4: '81.2.69.149', options: weighted }, { network });
    expect(zones.server.count('149.69.2.81.zen.zone.test')).toBe(before + 1);
  });
});
