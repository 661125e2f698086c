// The table test of ip-intelligence. Rows for every provider are found in the shipped data by an
// independent oracle (ipaddr.js and a linear scan of every list, no range table): an address inside the
// provider's ranges that no higher-precedence provider covers, and the first address after one of its
// ranges that no list at all covers. Literal rows pin the documented cases.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import type { FactValues } from '../../src/engine/plugin.js';
import { packageRoot } from '../../src/paths.js';
import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import { readDataFile } from '../plugin-data.js';
import plugin from './index.js';
import { PROVIDERS } from './lists.js';

/** The documented precedence, highest first: README.md's "Precedence where ranges overlap" list. */
const PRECEDENCE = documentedPrecedence();

function documentedPrecedence(): string[] {
  const readme = readFileSync(join(packageRoot, 'plugins/ip-intelligence/README.md'), 'utf8');
  const section = readme.split('## Precedence where ranges overlap')[1]?.split('\n## ')[0] ?? '';
  return section
    .split(/\n(?=\d+\. )/)
    .filter((item) => /^\d+\. /.test(item))
    .flatMap((item) => {
      // "1. **Group** (note): key, key." or "2. **key**: what it is."
      const [, bold = '', rest = ''] = /^\d+\. \*\*([^*]+)\*\*([\s\S]*)$/.exec(item.replace(/\s+/g, ' ')) ?? [];
      if (/^[a-z_]+$/.test(bold)) return [bold];
      const keys =
        rest
          .replace(/\([^)]*\)/g, '')
          .replace(/^[^:]*: /, '')
          .split('.')[0] ?? '';
      return keys.split(',').map((key) => key.trim());
    });
}
const RELAYS = ['apple_private_relay'];

type Version = 'v4' | 'v6';
type Span = [bigint, bigint];

const toInt = (address: ipaddr.IPv4 | ipaddr.IPv6) => address.toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);

/** Every list of data/ as spans per version, read with ipaddr.js. */
function spans(file: string): Record<Version, Span[]> {
  const out: Record<Version, Span[]> = { v4: [], v6: [] };
  for (const line of readDataFile('ip-intelligence', file).split('\n')) {
    if (line === '') continue;
    const cidr = line.includes('/') ? line : `${line}/${line.includes(':') ? 128 : 32}`;
    const kind = ipaddr.parseCIDR(cidr)[0].kind() === 'ipv4' ? 'v4' : 'v6';
    const Family = kind === 'v4' ? ipaddr.IPv4 : ipaddr.IPv6;
    out[kind].push([toInt(Family.networkAddressFromCIDR(cidr)), toInt(Family.broadcastAddressFromCIDR(cidr))]);
  }
  return out;
}

const providerLists = new Map(PRECEDENCE.map((key) => [key, spans(`providers/${key}.txt`)]));
const listOf = (key: string): Record<Version, Span[]> => providerLists.get(key) ?? { v4: [], v6: [] };
const vpnList = spans('vpn.txt');
const torList = spans('tor-exits.txt');
const datacenterList = spans('datacenter.txt');
const covers = (list: Record<Version, Span[]>, v: Version, n: bigint) => list[v].some(([a, b]) => a <= n && n <= b);

const text = (v: Version, n: bigint) =>
  v === 'v4'
    ? ipaddr.fromByteArray([24, 16, 8, 0].map((s) => Number((n >> BigInt(s)) & 255n))).toString()
    : ipaddr.fromByteArray(Array.from({ length: 16 }, (_, i) => Number((n >> BigInt(8 * (15 - i))) & 255n))).toString();

interface Oracle {
  provider: string | null;
  vpn: boolean;
  tor: boolean;
  datacenter: boolean;
}

function oracle(v: Version, n: bigint): Oracle {
  const inside = PRECEDENCE.filter((key) => covers(listOf(key), v, n));
  return {
    provider: inside[0] ?? null,
    vpn: covers(vpnList, v, n) || inside.some((key) => RELAYS.includes(key)),
    tor: covers(torList, v, n),
    datacenter: covers(datacenterList, v, n) || inside.some((key) => !RELAYS.includes(key)),
  };
}

/** The expected facts and fires of a request with these addresses, from the oracle. */
function expected(v4: bigint | null, v6: bigint | null): Pick<PluginCase, 'facts' | 'fires'> {
  const a = v4 === null ? null : oracle('v4', v4);
  const b = v6 === null ? null : oracle('v6', v6);
  const any = [a, b].filter((o): o is Oracle => o !== null);
  const vpn = any.some((o) => o.vpn || o.tor);
  const provider = a?.provider ?? b?.provider ?? 'unknown';
  const facts: FactValues = {
    ipv4_provider: a ? (a.provider ?? 'unknown') : null,
    ipv6_provider: b ? (b.provider ?? 'unknown') : null,
    ip_provider: provider,
    vpn: vpn ? 'detected' : 'none',
    is_vpn: any.some((o) => o.vpn),
    is_tor: any.some((o) => o.tor),
    is_datacenter: any.some((o) => o.datacenter),
  };
  return { facts, fires: [...(provider !== 'unknown' ? ['ip_provider'] : []), ...(vpn ? ['vpn_ip'] : [])] };
}

const covered = (v: Version, n: bigint) => {
  const o = oracle(v, n);
  return o.provider !== null || o.vpn || o.tor || o.datacenter;
};

/** An address of `key`'s ranges that names `key` (no higher-precedence provider covers it). */
function insideOf(key: string, v: Version): bigint | undefined {
  return listOf(key)
    [v].map(([a]) => a)
    .find((n) => oracle(v, n).provider === key);
}

/**
 * The first address after one of `key`'s ranges that no list covers; failing that (googlebot's ranges
 * all border Google's other space), one that no provider list covers; failing that, one outside `key`.
 */
function justOutside(key: string, v: Version): bigint | undefined {
  const top = v === 'v4' ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  const after = listOf(key)
    [v].map(([, b]) => b + 1n)
    .filter((n) => n <= top && !covers(listOf(key), v, n));
  return after.find((n) => !covered(v, n)) ?? after.find((n) => oracle(v, n).provider === null) ?? after[0];
}

const EMAIL = 'jane@example.com';
const providerRows: PluginCase[] = [];
for (const key of PRECEDENCE) {
  for (const v of ['v4', 'v6'] as const) {
    if (listOf(key)[v].length === 0) continue;
    const inside = insideOf(key, v);
    const outside = justOutside(key, v);
    if (inside === undefined || outside === undefined) throw new Error(`no ${v} address inside/just outside ${key} in the data`);
    const field = v === 'v4' ? 'ipv4' : 'ipv6';
    const row = (n: bigint) => (v === 'v4' ? expected(n, null) : expected(null, n));
    const rowIn = row(inside);
    providerRows.push({ name: `${key} ${v}: ${text(v, inside)} inside`, email: EMAIL, [field]: text(v, inside), ...rowIn });
    providerRows.push({ name: `${key} ${v}: ${text(v, outside)} just outside`, email: EMAIL, [field]: text(v, outside), ...row(outside) });
  }
}

// Every provider has an IPv4 row; the ones with IPv6 data an IPv6 row too.
describe('provider rows', () => {
  it('cover every provider file of data/ in both versions where it has data', () => {
    const files = readdirSync(join(packageRoot, 'plugins', 'ip-intelligence', 'data', 'providers')).map((f) => f.replace(/\.txt$/, ''));
    expect([...files].sort()).toEqual([...PRECEDENCE].sort());
    expect([...PROVIDERS]).toEqual(PRECEDENCE);
    expect(plugin.facts.ipv4_provider?.values).toEqual([...[...PRECEDENCE].sort(), 'unknown']);
    for (const key of PRECEDENCE) expect(providerRows.some((r) => r.name?.startsWith(`${key} v4:`))).toBe(true);
    expect(providerRows.filter((r) => r.name?.includes(' v6: ')).length).toBe(PRECEDENCE.filter((k) => listOf(k).v6.length > 0).length * 2);
    // "just outside" rows never name their provider.
    for (const r of providerRows.filter((row) => row.name?.endsWith('just outside'))) expect(r.facts.ip_provider).not.toBe(r.name?.split(' ')[0]);
  });
});

testPlugin(plugin, providerRows);

const first = (list: Record<Version, Span[]>, v: Version, ok: (o: Oracle) => boolean) => list[v].map(([a]) => a).find((n) => ok(oracle(v, n)));
const ip = (v: Version, n: bigint | undefined) => {
  if (n === undefined) throw new Error(`no such ${v} address in the data`);
  return text(v, n);
};
const torV4 = ip(
  'v4',
  first(torList, 'v4', (o) => o.provider === null),
);
const torV6 = ip(
  'v6',
  first(torList, 'v6', (o) => o.provider === null),
);
const vpnV4 = ip(
  'v4',
  first(vpnList, 'v4', (o) => o.provider === null && !o.tor),
);
const datacenterOnly = ip(
  'v4',
  first(datacenterList, 'v4', (o) => o.provider === null && !o.vpn && !o.tor),
);
// A googlebot address that is also inside google_cloud: the crawler names it.
const googlebotInCloud = ip(
  'v4',
  listOf('googlebot')
    .v4.map(([a]) => a)
    .find((n) => covers(listOf('google_cloud'), 'v4', n)),
);
const relayV4 = ip('v4', insideOf('apple_private_relay', 'v4'));

const NONE = { ipv4_provider: null, ipv6_provider: null, ip_provider: null, vpn: null, is_vpn: null, is_tor: null, is_datacenter: null };
const CLEAN = { ip_provider: 'unknown', vpn: 'none', is_vpn: false, is_tor: false, is_datacenter: false };

testPlugin(plugin, [
  { name: 'no IP: every fact unknown, nothing fires', email: EMAIL, facts: NONE, fires: [] },
  { name: 'loopback is in no list', email: EMAIL, ipv4: '127.0.0.1', facts: { ...CLEAN, ipv4_provider: 'unknown', ipv6_provider: null }, fires: [] },
  { name: 'IPv6 loopback is in no list', email: EMAIL, ipv6: '::1', facts: { ...CLEAN, ipv4_provider: null, ipv6_provider: 'unknown' }, fires: [] },
  // 6to4 (2002::/16) embeds its user's IPv4 address: no provider owns the block (vultr's import had listed it).
  {
    name: 'a 6to4 address is in no provider list',
    email: EMAIL,
    ipv6: '2002:c633:6401::1',
    facts: { ...CLEAN, ipv4_provider: null, ipv6_provider: 'unknown' },
    fires: [],
  },
  {
    name: `precedence: googlebot ${googlebotInCloud} inside google_cloud names googlebot`,
    email: EMAIL,
    ipv4: googlebotInCloud,
    facts: { ipv4_provider: 'googlebot', ip_provider: 'googlebot', is_datacenter: true },
    fires: expected(toInt(ipaddr.IPv4.parse(googlebotInCloud)), null).fires ?? [],
  },
  {
    name: 'a published Googlebot address (66.249.66.1)',
    email: EMAIL,
    ipv4: '66.249.66.1',
    facts: { ipv4_provider: 'googlebot', ip_provider: 'googlebot', vpn: 'none', is_vpn: false, is_tor: false, is_datacenter: true },
    fires: ['ip_provider'],
  },
  {
    name: 'IPv4-mapped IPv6 is looked up as IPv4',
    email: EMAIL,
    ipv6: '::ffff:66.249.66.1',
    facts: { ipv4_provider: null, ipv6_provider: 'googlebot', ip_provider: 'googlebot', is_datacenter: true },
    fires: ['ip_provider'],
  },
  {
    name: 'IPv4-mapped IPv6 in no list',
    email: EMAIL,
    ipv6: '::ffff:127.0.0.1',
    facts: { ...CLEAN, ipv4_provider: null, ipv6_provider: 'unknown' },
    fires: [],
  },
  {
    name: `a Tor exit (${torV4})`,
    email: EMAIL,
    ipv4: torV4,
    facts: { ipv4_provider: 'unknown', ip_provider: 'unknown', vpn: 'detected', is_tor: true },
    fires: ['vpn_ip'],
  },
  { name: `an IPv6 Tor exit (${torV6})`, email: EMAIL, ipv6: torV6, facts: { ipv6_provider: 'unknown', vpn: 'detected', is_tor: true }, fires: ['vpn_ip'] },
  {
    name: `a VPN range (${vpnV4})`,
    email: EMAIL,
    ipv4: vpnV4,
    facts: { ipv4_provider: 'unknown', ip_provider: 'unknown', vpn: 'detected', is_vpn: true, is_tor: false },
    fires: ['vpn_ip'],
  },
  {
    name: `iCloud Private Relay is a VPN (${relayV4})`,
    email: EMAIL,
    ipv4: relayV4,
    facts: { ipv4_provider: 'apple_private_relay', vpn: 'detected', is_vpn: true },
    fires: ['ip_provider', 'vpn_ip'],
  },
  {
    name: `a datacenter-only range (${datacenterOnly})`,
    email: EMAIL,
    ipv4: datacenterOnly,
    facts: { ipv4_provider: 'unknown', ip_provider: 'unknown', vpn: 'none', is_vpn: false, is_tor: false, is_datacenter: true },
    fires: [],
  },
  {
    name: "both IPs: the IPv4's provider names the request",
    email: EMAIL,
    ipv4: '66.249.66.1',
    ipv6: '::1',
    facts: { ipv4_provider: 'googlebot', ipv6_provider: 'unknown', ip_provider: 'googlebot' },
    fires: ['ip_provider'],
  },
  {
    name: "both IPs, the IPv4 in no list: the IPv6's provider names the request",
    email: EMAIL,
    ipv4: '127.0.0.1',
    ipv6: '::ffff:66.249.66.1',
    facts: { ipv4_provider: 'unknown', ipv6_provider: 'googlebot', ip_provider: 'googlebot' },
    fires: ['ip_provider'],
  },
  {
    name: 'both IPs: a Tor IPv6 makes the request a VPN one',
    email: EMAIL,
    ipv4: '127.0.0.1',
    ipv6: torV6,
    facts: { ip_provider: 'unknown', vpn: 'detected', is_tor: true, is_vpn: false },
    fires: ['vpn_ip'],
  },
  { name: 'not an IP address: unknown, never an error', email: EMAIL, ipv4: 'not-an-ip', facts: NONE, fires: [] },
]);

describe('ip-intelligence data declaration', () => {
  it('lists every loaded file with a licensed source, a date and its entry count', () => {
    const data = plugin.data ?? [];
    expect(data.map((d) => d.name).sort()).toEqual([...PRECEDENCE.map((k) => `providers/${k}.txt`), 'datacenter.txt', 'tor-exits.txt', 'vpn.txt'].sort());
    for (const list of data) {
      expect(['CC0-1.0', 'MIT']).toContain(list.license);
      expect(list.date).toMatch(/^20\d\d-\d\d-\d\d$/);
      const lines = readDataFile('ip-intelligence', list.name)
        .split('\n')
        .filter((l) => l !== '').length;
      expect(list.entries, list.name).toBe(lines);
    }
  });
});
