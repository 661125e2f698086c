// An update's CIDRs cleaned as the import cleaned the shipped lists (data/SOURCE.md, "Format and cleaning"):
// prefixes inside a non-global block left out, the rest collapsed into the fewest CIDRs covering the same
// addresses. Collapsing changes no lookup (the tables merge a list's ranges anyway); it keeps an update's
// entry count comparable with the shipped list's, which the shrink guard compares, and keeps an upstream
// published in small pieces (Apple's relay: hundreds of thousands of rows) from growing every start.
import ipaddr from 'ipaddr.js';
import { SPECIAL_PURPOSE_V4 } from '../ip-address.js';
import { compileSegments, parseRanges, type Range } from './range-table.js';

// The blocks IANA's special-purpose registries mark not globally reachable (private, loopback, link-local,
// multicast, reserved, documentation, benchmarking, 6to4), which no provider's traffic comes from: IPv4's the
// list ip-network answers no network for (../ip-address.ts), IPv6's here. Vultr's geofeed lists several as its own.
const NON_GLOBAL = parseRanges(
  [
    ...SPECIAL_PURPOSE_V4,
    '::/127',
    '::ffff:0:0/96',
    '64:ff9b:1::/48',
    '100::/64',
    '2001::/23',
    '2001:db8::/32',
    '2002::/16',
    '3fff::/20',
    'fc00::/7',
    'fe80::/10',
    'fec0::/10',
    'ff00::/8',
  ].join('\n'),
  'non-global blocks',
);

const inside = <T extends number | bigint>([first, last]: Range<T>, blocks: readonly Range<T>[]): boolean =>
  blocks.some(([from, to]) => from <= first && last <= to);

const dotted = (n: number): string => `${Math.floor(n / 2 ** 24)}.${Math.floor(n / 2 ** 16) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`;

function hexColon(n: bigint): string {
  const words = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  return new ipaddr.IPv6(words).toRFC5952String();
}

/** The IPv4 CIDRs covering [first, last] exactly, in order: at each step the largest block aligned there that fits. */
function ipv4Cidrs(first: number, last: number): string[] {
  const out: string[] = [];
  for (let at = first; at <= last; ) {
    let bits = 32;
    while (bits > 0 && at % 2 ** (33 - bits) === 0 && at + 2 ** (33 - bits) - 1 <= last) bits -= 1;
    out.push(`${dotted(at)}/${bits}`);
    at += 2 ** (32 - bits);
  }
  return out;
}

/** The same for IPv6. */
function ipv6Cidrs(first: bigint, last: bigint): string[] {
  const out: string[] = [];
  for (let at = first; at <= last; ) {
    let bits = 128;
    while (bits > 0 && at % (1n << BigInt(129 - bits)) === 0n && at + (1n << BigInt(129 - bits)) - 1n <= last) bits -= 1;
    out.push(`${hexColon(at)}/${bits}`);
    at += 1n << BigInt(128 - bits);
  }
  return out;
}

/**
 * `lines` (CIDRs or addresses, each already checked) without the prefixes inside a non-global block, collapsed:
 * IPv4 first, then IPv6, each sorted, in the shipped files' spelling (RFC 5952 for IPv6).
 */
export function collapsePrefixes(lines: readonly string[]): string[] {
  const { v4, v6 } = parseRanges(lines.join('\n'), 'update');
  const v4Segments = compileSegments([v4.filter((range) => !inside(range, NON_GLOBAL.v4))], () => 1);
  const v6Segments = compileSegments([v6.filter((range) => !inside(range, NON_GLOBAL.v6))], () => 1);
  return [...v4Segments.flatMap(({ first, last }) => ipv4Cidrs(first, last)), ...v6Segments.flatMap(({ first, last }) => ipv6Cidrs(first, last))];
}
