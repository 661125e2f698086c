// Operators of our own beside json-rules-engine's, for the lists a policy writes (exemptions, free rules):
// `inDomains` holds when a domain or one of its parents is listed (partner.example covers
// mail.partner.example), `inNetworks` when an IP address is in one of the listed networks (CIDR, or one
// address). The engine calls an operator with the fact's value and the condition's value; a list is turned
// into its lookup form once (kept by the list's identity, which the engine's rules keep for their
// lifetime), so a test costs the walk up the domain's labels or a binary search, whatever the list's length.
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

export interface CustomOperator {
  name: string;
  /** Whether the fact's value passes the test; null (unknown) never does. */
  test(factValue: unknown, listed: unknown): boolean;
}

/** A host name's form: labels of letters, digits, hyphens (and underscores, as some mail hosts have), dot-separated. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A listed domain as inDomains compares it: lower case, ASCII (punycode), no trailing dot; null when it is not a domain name (`*.example.com`). */
export function domainEntry(text: string): string | null {
  const ascii = domainToASCII(text.trim().toLowerCase().replace(/\.$/, ''));
  return HOST_NAME.test(ascii) ? ascii : null;
}

/** The network a listed text names (`203.0.113.0/24`, `2001:db8::/32`, or one address); null when it names none. */
export function networkEntry(text: string): Network | null {
  try {
    const [address, bits] = text.includes('/') ? ipaddr.parseCIDR(text.trim()) : ipAndWidth(ipaddr.parse(text.trim()));
    const width = address.kind() === 'ipv4' ? 32 : 128;
    const start = (bigintOf(address) >> BigInt(width - bits)) << BigInt(width - bits);
    return { family: address.kind(), start, end: start + (1n << BigInt(width - bits)) - 1n };
  } catch {
    return null;
  }
}

export interface Network {
  family: 'ipv4' | 'ipv6';
  start: bigint;
  end: bigint;
}

const domainSets = new WeakMap<object, ReadonlySet<string>>();
const networkTables = new WeakMap<object, NetworkTable>();

export const OPERATORS_OF_OUR_OWN: readonly CustomOperator[] = [
  {
    name: 'inDomains',
    test(factValue, listed) {
      if (typeof factValue !== 'string' || !Array.isArray(listed)) return false;
      const set = cached(domainSets, listed, () => new Set(listed.flatMap((e) => (typeof e === 'string' ? (domainEntry(e) ?? []) : []))));
      let name = domainEntry(factValue);
      while (name !== null) {
        if (set.has(name)) return true;
        const dot = name.indexOf('.');
        name = dot < 0 ? null : name.slice(dot + 1);
      }
      return false;
    },
  },
  {
    name: 'inNetworks',
    test(factValue, listed) {
      if (typeof factValue !== 'string' || !Array.isArray(listed)) return false;
      const table = cached(networkTables, listed, () => networkTable(listed));
      let address: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        address = ipaddr.parse(factValue);
      } catch {
        return false;
      }
      if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
      return contains(address.kind() === 'ipv4' ? table.ipv4 : table.ipv6, bigintOf(address));
    },
  },
];

function cached<T>(map: WeakMap<object, T>, key: object, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

function ipAndWidth(address: ipaddr.IPv4 | ipaddr.IPv6): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

function bigintOf(address: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  let value = 0n;
  for (const byte of address.toByteArray()) value = (value << 8n) | BigInt(byte);
  return value;
}

/** Each family's networks as sorted, merged [start, end] ranges. */
interface NetworkTable {
  ipv4: readonly [bigint, bigint][];
  ipv6: readonly [bigint, bigint][];
}

function networkTable(listed: readonly unknown[]): NetworkTable {
  const networks = listed.flatMap((e) => (typeof e === 'string' ? (networkEntry(e) ?? []) : []));
  const merged = (family: Network['family']) => {
    const ranges = networks
      .filter((n) => n.family === family)
      .map((n): [bigint, bigint] => [n.start, n.end])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const out: [bigint, bigint][] = [];
    for (const range of ranges) {
      const last = out.at(-1);
      if (last && range[0] <= last[1] + 1n) last[1] = range[1] > last[1] ? range[1] : last[1];
      else out.push([range[0], range[1]]);
    }
    return out;
  };
  return { ipv4: merged('ipv4'), ipv6: merged('ipv6') };
}

function contains(ranges: readonly [bigint, bigint][], value: bigint): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = ranges[mid] as [bigint, bigint];
    if (value < start) high = mid - 1;
    else if (value > end) low = mid + 1;
    else return true;
  }
  return false;
}
