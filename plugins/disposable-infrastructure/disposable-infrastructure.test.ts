// The disposable-infrastructure plugin against a real DNS server on 127.0.0.1 (test/support/dns-server.ts):
// a domain whose MX host belongs to a listed disposable service is detected, its own hosts and other mail
// hosts are not, and nothing is asked (the signal unknown) when network checks are off or the lookup fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { createDnsLookup, type DnsService } from '../../src/network/dns.js';
import { OFFLINE } from '../../src/network/offline.js';
import { startDnsServer, TEST_ZONE, type TestDnsServer } from '../../test/support/dns-server.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import { DISPOSABLE_DATA, disposableDomains } from '../disposable-domains.js';
import { readList } from '../plugin-data.js';
import plugin from './index.js';

const mx = (exchange: string, priority = 10) => ({ type: 'MX' as const, exchange, priority });
const ZONE = {
  ...TEST_ZONE,
  // A fresh generator domain routed to a listed service's host (guerrillamail.com is on disposable's list).
  'rotating.test': { records: [mx('mail.rotating.test', 5), mx('MX.GuerrillaMail.com', 10)] },
  // The service itself: mail to its own hosts is no shared infrastructure (the disposable check covers it).
  'guerrillamail.com': { records: [mx('mx.guerrillamail.com')] },
  'sub.guerrillamail.com': { records: [mx('mx.guerrillamail.com')] },
  // A Yandex 360 customer: yandex.net is on two lists but on never-disposable.txt, so not on the shipped list.
  'yandex-customer.test': { records: [mx('mx.yandex.net')] },
  'plain.test': { records: [mx('mx.plain.test')] },
  'nomail.test': { records: [{ type: 'A' as const, address: '192.0.2.80' }] },
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

const network: NetworkAccess = {
  ...OFFLINE,
  enabled: true,
  dns: {
    mx: (d) => dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }).mx(d),
    a: (d) => dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }).a(d),
    aaaa: (d) => dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }).aaaa(d),
  },
};

const none = { disposable_infrastructure_signal: 'none', disposable_mx_host: null };
const unknown = { disposable_infrastructure_signal: null, disposable_mx_host: null };

testPlugin(
  plugin,
  [
    {
      name: "a second MX on a disposable service's host (upper case in the answer)",
      email: 'jane@rotating.test',
      facts: { disposable_infrastructure_signal: 'detected', disposable_mx_host: 'mx.guerrillamail.com' },
    },
    { name: "the service's own domain: its own hosts", email: 'jane@guerrillamail.com', facts: none },
    { name: "a subdomain of the service on the service's hosts", email: 'jane@sub.guerrillamail.com', facts: none },
    { name: 'a guarded mail host (never-disposable.txt)', email: 'jane@yandex-customer.test', facts: none },
    { name: 'an ordinary mail host', email: 'jane@plain.test', facts: none },
    { name: 'no MX records: nothing shared', email: 'jane@nomail.test', facts: none },
    { name: 'NXDOMAIN: nothing shared', email: 'jane@nx.test', facts: none },
    { name: 'SERVFAIL: unknown, never none', email: 'jane@servfail.test', facts: unknown },
    { name: 'no answer within the budget: unknown', email: 'jane@silent.test', facts: unknown },
    { name: 'an invalid address: unknown', email: 'jane@@rotating.test', facts: unknown },
    { name: 'an address literal: unknown', email: 'jane@[192.0.2.1]', facts: unknown },
  ],
  { network },
);

describe('disposable-infrastructure without a network', () => {
  it('asks nothing and knows nothing when network checks are off', async () => {
    const before = server.count('rotating.test');
    expect(await computeFacts(plugin, { email: 'jane@rotating.test' }, { network: { ...network, enabled: false } })).toMatchObject(unknown);
    expect(await computeFacts(plugin, { email: 'jane@rotating.test' }, { network: OFFLINE })).toMatchObject(unknown);
    expect(server.count('rotating.test')).toBe(before);
  });

  it('reads the disposable list the disposable plugin holds, not a second copy', () => {
    expect(disposableDomains).toBe(readList(DISPOSABLE_DATA.pluginId, DISPOSABLE_DATA.file));
    expect(disposableDomains.has('guerrillamail.com')).toBe(true);
  });
});
