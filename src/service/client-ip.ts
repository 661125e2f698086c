// The caller's address as the spec reports it (IPv4 or IPv6, an IPv4-mapped IPv6 address as IPv4), and
// which X-Forwarded-For entry names it behind proxies. Each proxy appends the peer it saw to the right
// of that header, so only entries appended by trusted proxies are believed: the leftmost one is
// whatever the client wrote, and is never taken unless every hop to its right is trusted.
import type ipaddr from 'ipaddr.js';
import { parseAddress } from '../address-text.js';
import type { ProxyRange, TrustProxy } from '../config.js';

export interface ClientAddress {
  ipv4_address: string | null;
  ipv6_address: string | null;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const NO_ADDRESS: ClientAddress = { ipv4_address: null, ipv6_address: null };

export function clientAddress(raw: string | undefined): ClientAddress {
  return reported(parseAddress(raw));
}

/**
 * The client behind `trust`'s proxies: the socket's peer unless trusted proxies forwarded the request.
 * An entry that is not an address, or a list shorter than the hops, gives the socket's peer.
 */
export function forwardedClient(socketAddress: string | undefined, forwardedFor: string | undefined, trust: TrustProxy): ClientAddress {
  const peer = parseAddress(socketAddress);
  if (trust.kind === 'off' || !peer) return reported(peer);
  const entries = forwardedFor ? forwardedFor.split(',') : [];
  if (trust.kind === 'hops') {
    if (entries.length < trust.hops) return reported(peer);
    return reported(parseAddress(entries[entries.length - trust.hops]) ?? peer);
  }
  let client: Address = peer;
  for (let i = entries.length - 1; i >= 0 && trust.ranges.some((range) => inRange(client, range)); i--) {
    const appended = parseAddress(entries[i]);
    if (!appended) return reported(peer);
    client = appended;
  }
  return reported(client);
}

function inRange(address: Address, range: ProxyRange): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function reported(address: Address | null): ClientAddress {
  if (!address) return NO_ADDRESS;
  if (address.kind() === 'ipv4') return { ipv4_address: address.toString(), ipv6_address: null };
  return { ipv4_address: null, ipv6_address: address.toString() };
}
