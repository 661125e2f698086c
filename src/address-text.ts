// IP addresses as configuration and proxies write them, with or without a port. A leaf module: the
// configuration (DNS_SERVERS, TRUST_PROXY) and the client's address (src/service/client-ip.ts) both read
// these notations, and the configuration may import nothing above it.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * An address in the notations proxies write: `192.0.2.1`, `192.0.2.1:443`, `2001:db8::1`,
 * `[2001:db8::1]:443`, `fe80::1%eth0`; IPv4-mapped IPv6 becomes IPv4. Null for anything else,
 * including the loose IPv4 forms (`127.1`, `0x7f.0.0.1`) no proxy writes.
 */
export function parseAddress(raw: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = (raw ?? '').trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  const v6 = (bracketed ? (bracketed[1] ?? '') : text).replace(/%[\w.-]+$/, '');
  if (v6.includes(':') && ipaddr.IPv6.isValid(v6)) return ipaddr.process(v6);
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::\d{1,5})?$/.exec(text)?.[1] ?? '';
  return ipaddr.IPv4.isValidFourPartDecimal(v4) ? ipaddr.IPv4.parse(v4) : null;
}

/**
 * Validates DNS_SERVERS: a comma-separated list of `ip`, `ip:port` or `[ipv6]:port`. Throws an Error
 * naming the bad entry; an empty string gives [] (the system's servers).
 */
export function parseDnsServers(raw: string): string[] {
  const servers: string[] = [];
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    if (!isServer(entry)) throw new Error(`"${entry}" is not an IP address, ip:port or [ipv6]:port`);
    servers.push(entry);
  }
  return servers;
}

function isServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const bracketed = entry.startsWith('[') ? entry.indexOf(']:') : -1;
  const [host, port] = bracketed > 0 ? [entry.slice(1, bracketed), entry.slice(bracketed + 2)] : splitPort(entry);
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return false;
  return bracketed > 0 ? isIP(host) === 6 : isIP(host) === 4;
}

function splitPort(entry: string): [string, string] {
  const colon = entry.lastIndexOf(':');
  return colon < 0 ? [entry, ''] : [entry.slice(0, colon), entry.slice(colon + 1)];
}
