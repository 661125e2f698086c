// The table test of ip-network: rows for well-known networks, checked by hand against the registries
// (Google's and Amazon's published ranges, Tor's AS60729), the special-purpose ranges the tables must not
// answer for, and the tables' own edges, read back from the files an independent way (Buffer reads).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { testPlugin } from '../../test/support/plugin-tester.js';
import { ipv4Number } from '../ip-address.js';
import plugin, { lookupNetwork, networkType, specialPurposeV4 } from './index.js';
import { ENTRIES } from './tables.js';

const GOOGLE = { ip_asn: 15169, ip_as_org: 'Google LLC', ip_country: 'US', ip_network_type: 'hosting' };
const AMAZON = { ip_asn: 16509, ip_as_org: 'Amazon.com, Inc.', ip_network_type: 'hosting' };
const NONE = { ip_asn: null, ip_as_org: null, ip_country: null, ip_network_type: null };

testPlugin(plugin, [
  { name: 'Google Public DNS', email: 'a@example.com', ipv4: '8.8.8.8', facts: GOOGLE, fires: ['hosting_network'] },
  { name: 'an AWS address (us-east-1)', email: 'a@example.com', ipv4: '52.94.76.1', facts: { ...AMAZON, ip_country: 'US' }, fires: ['hosting_network'] },
  { name: 'an AWS address in Seoul', email: 'a@example.com', ipv4: '3.5.140.2', facts: { ...AMAZON, ip_country: 'KR' }, fires: ['hosting_network'] },
  { name: 'Google over IPv6', email: 'a@example.com', ipv6: '2001:4860:4860::8888', facts: GOOGLE, fires: ['hosting_network'] },
  { name: 'AWS Frankfurt over IPv6', email: 'a@example.com', ipv6: '2a05:d014::1', facts: { ...AMAZON, ip_country: 'DE' }, fires: ['hosting_network'] },
  { name: 'an IPv4-mapped IPv6 address is its IPv4', email: 'a@example.com', ipv6: '::ffff:8.8.4.4', facts: GOOGLE, fires: ['hosting_network'] },
  {
    name: 'a Tor exit operator: vpn',
    email: 'a@example.com',
    ipv4: '185.220.101.1',
    facts: { ip_asn: 60729, ip_country: 'DE', ip_network_type: 'vpn' },
    fires: ['hosting_network'],
  },
  {
    name: 'a consumer ISP: other',
    email: 'a@example.com',
    ipv4: '81.2.69.142',
    facts: { ip_asn: 20712, ip_as_org: 'Andrews & Arnold Ltd', ip_country: 'GB', ip_network_type: 'other' },
    fires: [],
  },
  {
    name: 'the IPv4 names the network; either address can make it hosting',
    email: 'a@example.com',
    ipv4: '81.2.69.142',
    ipv6: '2001:4860:4860::8888',
    facts: { ip_asn: 20712, ip_country: 'GB', ip_network_type: 'hosting' },
    fires: ['hosting_network'],
  },
  { name: 'documentation range (the registry table says AU)', email: 'a@example.com', ipv4: '198.51.100.7', facts: NONE, fires: [] },
  { name: 'private', email: 'a@example.com', ipv4: '10.0.0.1', facts: NONE, fires: [] },
  { name: 'loopback IPv6', email: 'a@example.com', ipv6: '::1', facts: NONE, fires: [] },
  { name: 'no IP: every fact unknown', email: 'a@example.com', facts: NONE, fires: [] },
]);

/** The [first, value] entries of a v4 table, read with Buffer's own integer reads. */
function v4Entries(file: string): Array<[number, number]> {
  const bytes = gunzipSync(readFileSync(join(packageRoot, 'plugins/ip-network/data', file)));
  const out: Array<[number, number]> = [];
  for (let at = 0; at < bytes.length; at += 8) out.push([bytes.readUInt32LE(at), bytes.readUInt32LE(at + 4)]);
  return out;
}

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

describe('the tables as lookups read them', () => {
  it('counts what entries.json says', () => {
    expect(v4Entries('asn-ipv4.bin.gz')).toHaveLength(ENTRIES['asn-ipv4.bin.gz'] as number);
    expect(v4Entries('country-ipv4.bin.gz')).toHaveLength(ENTRIES['country-ipv4.bin.gz'] as number);
  });

  it('answers each entry from its first address, and the entry before it one address earlier', () => {
    const entries = v4Entries('asn-ipv4.bin.gz');
    // Every 997th entry, so the sample spreads over the whole table.
    for (let i = 1; i < entries.length; i += 997) {
      const [first, value] = entries[i] as [number, number];
      const before = (entries[i - 1] as [number, number])[1];
      const at = lookupNetwork(dotted(first));
      const earlier = lookupNetwork(dotted(first - 1));
      // Special-purpose space answers nothing whatever the table holds.
      if (at?.asn === null && earlier?.asn === null) continue;
      expect(at?.asn ?? 0, dotted(first)).toBe(value);
      expect(earlier?.asn ?? 0, dotted(first - 1)).toBe(before);
    }
  });

  it('sorts the starts', () => {
    const entries = v4Entries('country-ipv4.bin.gz');
    const unsorted = entries.filter((entry, i) => i > 0 && entry[0] <= (entries[i - 1] as [number, number])[0]);
    expect(unsorted).toEqual([]);
  });

  it('types a network by the AS lists, a VPN operator before a host', () => {
    expect(networkType(9009)).toBe('vpn'); // M247: on both lists
    expect(networkType(16509)).toBe('hosting');
    expect(networkType(20712)).toBe('other');
  });

  it('takes an IPv4 address as special-purpose exactly where ipaddr.js does', () => {
    const disagree: string[] = [];
    // Each /16's first, middle and last address, and each side of every special block's edges.
    const samples: number[] = [];
    for (let block = 0; block < 65_536; block++) samples.push(block * 65_536, block * 65_536 + 0x7fff, block * 65_536 + 0xffff);
    for (const cidr of ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '100.64.0.0/10', '198.18.0.0/15', '192.88.99.0/24', '192.175.48.0/24']) {
      const [address, bits] = ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number];
      const first = ipv4Number(address);
      const last = first + 2 ** (32 - bits) - 1;
      samples.push(first - 1, first, last, last + 1);
    }
    for (const n of samples) {
      const text = dotted(n);
      if (specialPurposeV4(n) !== (ipaddr.IPv4.parse(text).range() !== 'unicast')) disagree.push(text);
    }
    expect(disagree).toEqual([]);
    expect(lookupNetwork('198.51.100.1')).toEqual({ asn: null, org: null, country: null });
  });

  it('says null, not a throw, for a text that is no IP', () => {
    expect(lookupNetwork('not an ip')).toBeNull();
  });
});
