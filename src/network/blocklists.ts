// DNS blocklists (DNSBL, RHSBL; RFC 5782): the question names of the configured zones, asked as A questions
// through the DNS lookups (dns.ts), so each answer is cached for its records' TTL, bounded by DNS_TIMEOUT_MS
// and DNS_TRIES, sent to DNS_SERVERS and given up when the request's budget is spent. What a zone's return
// codes mean is the dnsbl plugin's business: this module only asks.
import ipaddr from 'ipaddr.js';
import type { BlocklistAnswer, BlocklistLookup, DnsLookup } from '../engine/plugin.js';

export interface BlocklistZones {
  /** DNSBL_DOMAIN_ZONES: asked about `<domain>.<zone>` (RHSBL, such as dbl.spamhaus.org). */
  domain: readonly string[];
  /** DNSBL_IP_ZONES: asked about the reversed address under the zone (such as zen.spamhaus.org). */
  ip: readonly string[];
}

/**
 * The name an IP is asked under (without the zone): IPv4 `a.b.c.d` as `d.c.b.a`, IPv6 as its 32 nibbles in
 * reverse order, an IPv4-mapped IPv6 address as the IPv4 it maps. Null for a text that is no address.
 */
export function reversedAddress(text: string): string | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text);
  } catch {
    return null;
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return [...address.toByteArray()].reverse().join('.');
  const nibbles = (address as ipaddr.IPv6).parts.map((part) => part.toString(16).padStart(4, '0')).join('');
  return [...nibbles].reverse().join('.');
}

/** The blocklists of one request, asked through that request's DNS lookups. */
export function blocklistLookup(zones: BlocklistZones, dns: DnsLookup): BlocklistLookup {
  const ask = (name: string, zone: string): Promise<BlocklistAnswer> =>
    dns.a(`${name}.${zone}`).then(
      (answer) => ({ zone, answer }),
      (error: unknown) => ({ zone, answer: { status: 'error', reason: error instanceof Error ? error.message : 'lookup failed' } }),
    );
  return {
    domain: async (domain) => (zones.domain.length === 0 ? [] : Promise.all(zones.domain.map((zone) => ask(domain, zone)))),
    async ip(address) {
      const reversed = zones.ip.length === 0 ? null : reversedAddress(address);
      return reversed === null ? [] : Promise.all(zones.ip.map((zone) => ask(reversed, zone)));
    },
  };
}
