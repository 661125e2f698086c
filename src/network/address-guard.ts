// Which addresses an outbound probe may contact: public unicast only. Checked on the addresses a name
// resolved to (the connection then goes to those very addresses), so a name pointing at 127.0.0.1,
// a private network or a cloud metadata service is refused however it is spelled.
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /**
   * TESTS ONLY: lets loopback (127.0.0.0/8, ::1, and IPv4-mapped loopback) through, so a probe can reach
   * a test server on 127.0.0.1. Never set in production; no configuration variable sets it.
   */
  allowLoopbackForTests?: boolean;
}

/** Cloud metadata and host services reachable from a VM, some on addresses that look public. */
const METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean …
  '169.254.170.2', // AWS ECS task metadata
  '168.63.129.16', // Azure wire server (a public-range address)
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS over IPv6
  'fd20:ce::254', // GCP over IPv6
]);

const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * An IPv6 text with a dotted IPv4 tail (`::8.8.8.8`) rewritten to hex words: ipaddr.js would read any
 * such tail as IPv4-mapped, hiding the deprecated IPv4-compatible form.
 */
function hexTail(text: string): string {
  const colon = text.lastIndexOf(':');
  const tail = text.slice(colon + 1);
  if (colon < 0 || !ipaddr.IPv4.isValidFourPartDecimal(tail)) return text;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
  return `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** IPv4 address carried inside an IPv6 one (mapped, translated, NAT64, 6to4), or null. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  if (range === 'rfc6145' || (range === 'rfc6052' && address.match(NAT64_WELL_KNOWN))) return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  if (range === '6to4') return fromWords(parts[1] ?? 0, parts[2] ?? 0);
  return null;
}

/**
 * Why `address` may not be contacted — a range name such as `loopback`, `private`, `linkLocal`,
 * `carrierGradeNat`, `uniqueLocal`, `multicast`, `metadata`, `ipv4Compatible` — or null when it may
 * (public unicast). Anything that does not parse as an IP address is refused.
 */
export function addressRefusal(address: string, policy: AddressPolicy = {}): string | null {
  const text = hexTail(address.toLowerCase());
  if (!ipaddr.isValid(text)) return 'not an IP address';
  const parsed = ipaddr.parse(text);
  if (METADATA.has(parsed.toString())) return 'metadata';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.zoneId !== undefined) return 'zoned';
    const v4 = embeddedIPv4(v6);
    if (v4 !== null) return addressRefusal(v4.toString(), policy);
    // ipaddr.js calls the deprecated IPv4-compatible block (::a.b.c.d) unicast.
    if (v6.range() === 'unicast' && v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  }
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopbackForTests === true) return null;
  return range;
}

/** The refusal of the first refused address, or null when every address may be contacted. */
export function refusalOfAny(addresses: readonly string[], policy: AddressPolicy = {}): string | null {
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal !== null) return `${address} (${refusal})`;
  }
  return null;
}
