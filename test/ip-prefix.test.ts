import { describe, expect, it } from 'vitest';
import { isPublicUnicast, networkPrefix, replayAddress } from '../src/ip-prefix.js';

describe('the spellings device and token history count IPs by', () => {
  it.each([
    ['203.0.113.7', '203.0.113.0/24', '203.0.113.7'],
    ['2001:DB8:1:2:aaaa::1', '2001:db8:1:2::/64', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64', '2001:db8::/64'],
    ['::ffff:198.51.100.9', '198.51.100.0/24', '198.51.100.9'], // an IPv4-mapped address is its IPv4
    ['not an ip', null, null],
    ['', null, null],
  ])('%s: network %s, as replay counts it %s', (ip, network, replay) => {
    expect(networkPrefix(ip)).toBe(network);
    expect(replayAddress(ip)).toBe(replay);
  });

  it.each([
    ['81.2.69.142', true],
    ['2a00:1450:4001:800::200e', true],
    ['10.1.2.3', false],
    ['127.0.0.1', false],
    ['192.168.0.10', false],
    ['100.64.0.1', false], // carrier-grade NAT: shared, not a browser's own
    ['::1', false],
    ['fd00::1', false],
    ['garbage', false],
  ])('%s is public unicast: %s', (ip, expected) => {
    expect(isPublicUnicast(ip)).toBe(expected);
  });
});
