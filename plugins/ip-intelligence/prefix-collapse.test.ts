// An update's CIDRs cleaned as the import cleaned the shipped lists: each case's input lines and the list installed.
import { describe, expect, it } from 'vitest';
import { collapsePrefixes } from './prefix-collapse.js';

describe('collapsePrefixes', () => {
  it.each([
    ['two halves make their parent', ['198.51.99.0/25', '198.51.99.128/25'], ['198.51.99.0/24']],
    ['a prefix inside another goes', ['5.101.96.0/21', '5.101.97.0/24', '5.101.96.0/21'], ['5.101.96.0/21']],
    ['adjacent but unaligned blocks stay apart', ['5.101.97.0/24', '5.101.98.0/24'], ['5.101.97.0/24', '5.101.98.0/24']],
    ['host bits cleared, a bare address is a /32', ['5.101.97.9/24', '8.8.8.8'], ['5.101.97.0/24', '8.8.8.8/32']],
    ['sorted, IPv4 before IPv6', ['2a0a:a440::/29', '9.9.9.0/24', '1.1.1.0/24'], ['1.1.1.0/24', '9.9.9.0/24', '2a0a:a440::/29']],
    ['IPv6 halves, spelled as RFC 5952', ['2001:19F0:0:0:0:0:0:0/39', '2001:19f0:200::/39'], ['2001:19f0::/38']],
    [
      'documentation, private, reserved and 6to4 blocks left out',
      ['192.0.2.0/24', '203.0.113.7/32', '10.1.0.0/16', '240.0.0.0/4', '2001:db8::/32', '2001:2::/48', '2002::/16', 'fe80::/64', '45.32.0.0/16'],
      ['45.32.0.0/16'],
    ],
    ['a prefix around a non-global block is kept whole', ['192.0.0.0/16', '2001::/16'], ['192.0.0.0/16', '2001::/16']],
    ['nothing left', ['192.168.1.0/24'], []],
  ])('%s', (_name, input, expected) => {
    expect(collapsePrefixes(input)).toEqual(expected);
  });
});
