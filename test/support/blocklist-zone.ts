// The DNS blocklist zones the dnsbl and dnsbl-ip tests ask, answering as real zones do (a listing is an A
// record in 127.0.0.0/8, no listing NXDOMAIN, and the refusal codes), served by test/support/dns-server.ts;
// and a NetworkAccess whose blocklists are the real ones over the real DNS lookup.
import { afterAll, beforeAll } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { type BlocklistZones, blocklistLookup } from '../../src/network/blocklists.js';
import { createDnsLookup, type DnsService } from '../../src/network/dns.js';
import { OFFLINE } from '../../src/network/offline.js';
import { startDnsServer, type TestDnsServer, type Zone, type ZoneRecord } from './dns-server.js';

export const ZONES: BlocklistZones = { domain: ['dbl.zone.test', 'rhsbl.zone.test'], ip: ['zen.zone.test'] };

const a = (...addresses: string[]) => ({ records: addresses.map((address): ZoneRecord => ({ type: 'A', address })) });

/** Two domain zones and an IP zone, as real zones answer: a listing is an A record in 127.0.0.0/8, no listing NXDOMAIN. */
export const BLOCKLIST_ZONE: Zone = {
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

/** The real blocklist lookup over `dns`; each question gets a fresh request budget (the server starts after the tester's network is made). */
export function blocklistNetwork(dns: () => DnsService, zones: BlocklistZones = ZONES): NetworkAccess {
  const blocklists = () => blocklistLookup(zones, dns().forRequest({ persist: false, signal: AbortSignal.timeout(1500) }));
  return { ...OFFLINE, enabled: true, blocklists: { domain: (d) => blocklists().domain(d), ip: (ip) => blocklists().ip(ip) } };
}

/** BLOCKLIST_ZONE served for the calling test file (started before its tests, closed after), the lookup over it, and the network over both. */
export function blocklistZones(): { readonly server: TestDnsServer; readonly dns: DnsService; readonly network: NetworkAccess } {
  let server: TestDnsServer | undefined;
  let dns: DnsService | undefined;
  beforeAll(async () => {
    server = await startDnsServer(BLOCKLIST_ZONE);
    dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
  });
  afterAll(async () => {
    dns?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the blocklist zones start before the tests');
    return value;
  };
  const network = blocklistNetwork(() => started(dns));
  return {
    get server() {
      return started(server);
    },
    get dns() {
      return started(dns);
    },
    network,
  };
}
