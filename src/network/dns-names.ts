// The DNS servers the configuration names (DNS_SERVERS), checked once when it is read. Host names
// are src/host-name.ts's business.
import { isIP } from 'node:net';

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
