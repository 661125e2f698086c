// IP intelligence: the provider (cloud, CDN, crawler/AI agent, relay) of the request's IPv4/IPv6
// address, and whether it is a VPN, a Tor exit or a datacenter, from offline range lists compiled at
// module load into sorted range tables (lists.ts): one binary search per address, no I/O.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { ipNumber } from '../ip-address.js';
import { dataLists } from '../plugin-data.js';
import { decode, type IpFacts, loadTables, PROVIDERS, reloadTables } from './lists.js';
import { UPSTREAM_FORMATS } from './upstream-formats.js';

// Replaced whole by reloadData: a request reads one set of tables or the other, never a mix.
let tables = loadTables();

/** Size of the tables compiled at start (for the benchmark and the README's figures). */
export const tableStats = {
  v4Segments: tables.v4.size,
  v6Segments: tables.v6.size,
  bytes: tables.v4.bytes + tables.v6.bytes,
  ranges: tables.lists.reduce((sum, list) => sum + list.entries, 0),
};

/** The facts of one address; null when it is not an IP address (the service validates before; never throws). */
export function lookupIp(text: string): IpFacts | null {
  const ip = ipNumber(text);
  if (ip === null) return null;
  return decode(ip.kind === 'ipv4' ? tables.v4.find(ip.value) : tables.v6.find(ip.hi, ip.lo));
}

const PROVIDER_VALUES = [...[...PROVIDERS].sort(), 'unknown'];

const plugin: Plugin = {
  id: 'ip-intelligence',
  description:
    "Names the cloud, CDN, crawler or relay provider of the request's IPv4/IPv6 address and detects VPNs, Tor exits and datacenters, from offline range lists.",
  steps: ['ip_provider', 'vpn_ip'],
  codes: {
    common_provider_detected: { warning: 'a common cloud provider was detected (informational)' },
    vpn_detected: { warning: 'the IP is a VPN or proxy' },
  },
  facts: {
    ipv4_provider: {
      type: 'string',
      description: 'Provider key of the IPv4 address (a listed cloud, CDN, crawler/AI agent or relay), or `unknown`; null without an IPv4.',
      values: PROVIDER_VALUES,
      expose: 'analyzed_data',
    },
    ipv6_provider: {
      type: 'string',
      description: 'Provider key of the IPv6 address (an IPv4-mapped one is looked up as IPv4), or `unknown`; null without an IPv6.',
      values: PROVIDER_VALUES,
      expose: 'analyzed_data',
    },
    ip_provider: {
      type: 'string',
      description: "The request's provider key: the IPv4's when it names one, else the IPv6's, else `unknown`; null without any IP.",
      values: PROVIDER_VALUES,
    },
    vpn: {
      type: 'string',
      description: '`detected` when an address of the request is a VPN (or iCloud Private Relay) or a Tor exit, else `none`; null without any IP.',
      values: ['detected', 'none'],
      expose: 'analyzed_data',
    },
    is_vpn: {
      type: 'boolean',
      description: 'An address of the request is in a known VPN network or in iCloud Private Relay; null without any IP.',
    },
    is_tor: { type: 'boolean', description: 'An address of the request is a Tor exit relay; null without any IP.' },
    is_datacenter: {
      type: 'boolean',
      description: 'An address of the request is hosting space: the datacenter list or any listed provider but iCloud Private Relay; null without any IP.',
    },
  },
  checks: {
    ip_provider: {
      description: 'The request comes from a listed cloud, CDN, crawler/AI-agent or relay provider (`ip_provider` names one).',
      // `in` the keys, not `notEqual unknown`: json-rules-engine's notEqual holds for null (no IP).
      when: { fact: 'ip_provider', operator: 'in', value: [...PROVIDERS] },
      code: 'common_provider_detected',
    },
    vpn_ip: {
      description: 'The request comes from a VPN, iCloud Private Relay or a Tor exit (`vpn` is `detected`).',
      when: { fact: 'vpn', operator: 'equal', value: 'detected' },
      code: 'vpn_detected',
    },
  },
  needs: [],
  data: dataLists('ip-intelligence', tables.lists, UPSTREAM_FORMATS),
  async reloadData() {
    const reloaded = await reloadTables(tables.key);
    if (reloaded !== null) tables = reloaded;
    // Also for the same lists: an update that fetched what was installed has a new fetch time.
    plugin.data = dataLists('ip-intelligence', tables.lists, UPSTREAM_FORMATS);
  },
  async run(ctx): Promise<FactValues> {
    const { ipv4, ipv6 } = ctx.input;
    const v4 = ipv4 === null ? null : lookupIp(ipv4);
    const v6 = ipv6 === null ? null : lookupIp(ipv6);
    if (v4 === null && v6 === null) return {};
    const found = [v4, v6].filter((facts): facts is IpFacts => facts !== null);
    const isVpn = found.some((facts) => facts.vpn);
    const isTor = found.some((facts) => facts.tor);
    return {
      ipv4_provider: v4 === null ? null : (v4.provider ?? 'unknown'),
      ipv6_provider: v6 === null ? null : (v6.provider ?? 'unknown'),
      ip_provider: v4?.provider ?? v6?.provider ?? 'unknown',
      vpn: isVpn || isTor ? 'detected' : 'none',
      is_vpn: isVpn,
      is_tor: isTor,
      is_datacenter: found.some((facts) => facts.datacenter),
    };
  },
};

export default plugin;
