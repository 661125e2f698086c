// IP network: the AS number and organisation announcing the request's IP, its country of registration,
// and whether that network is a hosting provider's or a VPN operator's, from offline tables (tables.ts,
// built from the @ip-location-db packages by data/build.mjs) and two AS lists: one binary search each, no I/O.

import ipaddr from 'ipaddr.js';
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { dottedQuadNumber, type IpNumber, ipv4Number, ipv6Halves, SPECIAL_PURPOSE_V4 } from '../ip-address.js';
import { dataLists, readDataFile } from '../plugin-data.js';
import { ENTRIES, type Network, networkOf } from './tables.js';

/** AS numbers of a `AS<number><TAB><name>` list. */
function asNumbers(file: string): ReadonlySet<number> {
  const numbers = new Set<number>();
  for (const line of readDataFile('ip-network', file).split('\n')) {
    const match = /^AS(\d+)\t/.exec(line);
    if (match) numbers.add(Number(match[1]));
  }
  return numbers;
}

const HOSTING = asNumbers('hosting-asns.txt');
const VPN = asNumbers('vpn-asns.txt');

/** What a network is by its AS number: a VPN operator's, a hosting provider's, or on neither list. */
export function networkType(asn: number): 'vpn' | 'hosting' | 'other' {
  if (VPN.has(asn)) return 'vpn';
  return HOSTING.has(asn) ? 'hosting' : 'other';
}

/** SPECIAL_PURPOSE_V4 as [first, last]: no network answers for them, whatever the registries' tables hold (198.51.100.0/24, a documentation block, is AU there). The test holds the list to ipaddr.js. */
const SPECIAL_V4: ReadonlyArray<readonly [number, number]> = SPECIAL_PURPOSE_V4.map((cidr) => {
  const [address, bits] = ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number];
  const first = ipv4Number(address);
  return [first, first + 2 ** (32 - bits) - 1] as const;
});

/** Whether IPv4 number `n` is in a special-purpose block. */
export const specialPurposeV4 = (n: number) => SPECIAL_V4.some(([first, last]) => n >= first && n <= last);

/**
 * The network of one address; null when it is not an IP address (the service validates before). A
 * special-purpose address (private, loopback, documentation, …) has no network.
 */
export function lookupNetwork(text: string): Network | null {
  const quad = dottedQuadNumber(text);
  if (quad !== null) return specialPurposeV4(quad) ? NO_NETWORK : networkOf({ kind: 'ipv4', value: quad });
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(text);
  } catch {
    return null;
  }
  if (address.range() !== 'unicast') return NO_NETWORK;
  const ip: IpNumber =
    address.kind() === 'ipv4' ? { kind: 'ipv4', value: ipv4Number(address as ipaddr.IPv4) } : { kind: 'ipv6', ...halves(ipv6Halves(address as ipaddr.IPv6)) };
  return networkOf(ip);
}

const NO_NETWORK: Network = { asn: null, org: null, country: null };
const halves = ([hi, lo]: [bigint, bigint]) => ({ hi, lo });

const plugin: Plugin = {
  id: 'ip-network',
  description:
    "Names the network (AS number and organisation) and the country of the request's IP, and whether the network is a hosting provider's or a VPN operator's, from offline tables.",
  steps: ['hosting_network'],
  codes: {
    hosting_network_detected: { warning: "the IP's network (AS) belongs to a hosting provider or a VPN operator" },
  },
  facts: {
    ip_asn: {
      type: 'integer',
      description: "AS number announcing the IP (the IPv4's when known, else the IPv6's); null without an IP or where the tables hold none.",
      expose: 'analyzed_data',
    },
    ip_as_org: {
      type: 'string',
      description: 'Name of the organisation of `ip_asn`, as the registries give it; null without `ip_asn` or a name for it.',
      expose: 'analyzed_data',
    },
    ip_country: {
      type: 'string',
      description:
        "ISO 3166-1 alpha-2 code (upper case) of the country the IP is registered in (the IPv4's when known, else the IPv6's); null without an IP or where unknown.",
      expose: 'analyzed_data',
    },
    ip_network_type: {
      type: 'string',
      description:
        "`vpn` when an address's AS is a VPN operator's, else `hosting` when one is a hosting provider's, else `other`; null without a known AS number.",
      values: ['hosting', 'other', 'vpn'],
      expose: 'analyzed_data',
    },
  },
  checks: {
    hosting_network: {
      description: "The request's IP belongs to a network (AS) listed as a hosting provider's or a VPN operator's (`ip_network_type` is `hosting` or `vpn`).",
      when: { fact: 'ip_network_type', operator: 'in', value: ['hosting', 'vpn'] },
      code: 'hosting_network_detected',
    },
  },
  needs: [],
  data: dataLists('ip-network', [
    ...Object.entries(ENTRIES).map(([file, entries]) => ({ file, entries })),
    { file: 'hosting-asns.txt', entries: HOSTING.size },
    { file: 'vpn-asns.txt', entries: VPN.size },
  ]),
  async run(ctx): Promise<FactValues> {
    const { ipv4, ipv6 } = ctx.input;
    const v4 = ipv4 === null ? null : lookupNetwork(ipv4);
    const v6 = ipv6 === null ? null : lookupNetwork(ipv6);
    if (v4 === null && v6 === null) return {};
    const types = [v4?.asn, v6?.asn].filter((asn): asn is number => typeof asn === 'number').map(networkType);
    const asnOf = v4?.asn !== null && v4?.asn !== undefined ? v4 : v6;
    return {
      ip_asn: asnOf?.asn ?? null,
      ip_as_org: asnOf?.org ?? null,
      ip_country: v4?.country ?? v6?.country ?? null,
      ip_network_type: types.length === 0 ? null : types.includes('vpn') ? 'vpn' : types.includes('hosting') ? 'hosting' : 'other',
    };
  },
};

export default plugin;
