// DNS names and servers as the configuration and the lookups accept them.
import { isIP } from 'node:net';

/** Lower-cased ASCII name without its trailing dot, or null when it cannot be a DNS name. */
export function lookupName(domain: string): string | null {
  const name = (domain.endsWith('.') ? domain.slice(0, -1) : domain).toLowerCase();
  if (name.length === 0 || name.length > 253) return null;
  let labelLength = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (labelLength === 0) return null;
      labelLength = 0;
      continue;
    }
    const ldh = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
    if (!ldh || ++labelLength > 63) return null;
  }
  return labelLength === 0 ? null : name;
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
