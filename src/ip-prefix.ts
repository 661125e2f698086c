// The spellings of an IP that device and token history count by, in one place: the store writes them and
// the device plugin counts the current request's with them (and which addresses are public). It imports
// nothing of the project.
import ipaddr from 'ipaddr.js';

/**
 * The network an address is in, as history counts networks: an IPv4 address's /24 (`203.0.113.0/24`), an
 * IPv6 address's /64 (`2001:db8:1:2::/64`, one host's privacy addresses and one home's devices). Null for
 * text that is not an IP address.
 */
export function networkPrefix(ip: string): string | null {
  const address = parsed(ip);
  if (address === null) return null;
  if (address.kind() === 'ipv4') {
    const [a, b, c] = (address as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (address as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toRFC5952String()}/64`;
}

/**
 * An address as a fingerprint token's uses count IPs: an IPv4 address itself, an IPv6 address by its /64
 * (a host's privacy addresses change within it). Null for text that is not an IP address.
 */
export function replayAddress(ip: string): string | null {
  const address = parsed(ip);
  if (address === null) return null;
  return address.kind() === 'ipv4' ? address.toString() : networkPrefix(ip);
}

/** Whether an address is a public unicast one (ipaddr.js's `unicast` range): not private, loopback, shared or documentation. */
export function isPublicUnicast(ip: string): boolean {
  return parsed(ip)?.range() === 'unicast';
}

/** The address (an IPv4-mapped IPv6 address as its IPv4), or null for text that is not one. */
function parsed(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(ip);
  } catch {
    return null;
  }
}
