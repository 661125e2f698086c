// The caller's address as the spec reports it: IPv4 or IPv6, an IPv4-mapped IPv6 address as IPv4.
import ipaddr from 'ipaddr.js';

export interface ClientAddress {
  ipv4_address: string | null;
  ipv6_address: string | null;
}

export function clientAddress(raw: string | undefined): ClientAddress {
  const text = (raw ?? '')
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return { ipv4_address: null, ipv6_address: null };
  const address = ipaddr.process(text);
  if (address.kind() === 'ipv4') return { ipv4_address: address.toString(), ipv6_address: null };
  return { ipv4_address: null, ipv6_address: address.toString() };
}
