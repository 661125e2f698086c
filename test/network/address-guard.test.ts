import { describe, expect, it } from 'vitest';
import { isAddressLiteral } from '../../src/host-name.js';
import { addressRefusal, refusalOfAny } from '../../src/network/address-guard.js';

describe('addressRefusal', () => {
  it.each<[string, string | null]>([
    // Public unicast: may be contacted.
    ['8.8.8.8', null],
    ['93.184.215.14', null],
    ['172.32.0.1', null], // just past 172.16.0.0/12
    ['100.128.0.1', null], // just past 100.64.0.0/10
    ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::808:808', null], // NAT64 of 8.8.8.8
    ['2002:808:808::1', null], // 6to4 of 8.8.8.8
    // IPv4 ranges.
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    // IPv6 ranges.
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'zoned'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001::1', 'teredo'],
    ['2001:db8::1', 'reserved'],
    // IPv4 inside IPv6: judged by the IPv4 address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated (RFC 6145),
    // Odd notations are parsed, then judged.
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['not-an-ip', 'not an IP address'],
    ['', 'not an IP address'],
  ])('%s → %s', (address, refusal) => {
    expect(addressRefusal(address)).toBe(refusal);
  });

  it('lets loopback through only when a test asks, and nothing else', () => {
    const policy = { allowLoopbackForTests: true };
    expect(addressRefusal('127.0.0.1', policy)).toBeNull();
    expect(addressRefusal('::1', policy)).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.1', policy)).toBeNull();
    expect(addressRefusal('10.0.0.1', policy)).toBe('private');
    expect(addressRefusal('169.254.169.254', policy)).toBe('metadata');
    expect(addressRefusal('0.0.0.0', policy)).toBe('unspecified');
  });
});

describe('refusalOfAny', () => {
  it('refuses a list when any address is refused, naming it', () => {
    expect(refusalOfAny(['8.8.8.8', '2606:4700::1111'])).toBeNull();
    expect(refusalOfAny(['8.8.8.8', '10.0.0.1'])).toBe('10.0.0.1 (private)');
    expect(refusalOfAny(['::1', '8.8.8.8'])).toBe('::1 (loopback)');
    expect(refusalOfAny(['127.0.0.1', '10.0.0.1'], { allowLoopbackForTests: true })).toBe('10.0.0.1 (private)');
    expect(refusalOfAny([])).toBeNull();
  });
});

describe('isAddressLiteral', () => {
  it.each([
    '127.0.0.1',
    '0x7f.1',
    '0X7F.1',
    '2130706433',
    '0177.0.0.1',
    '127.1',
    '[::1]',
    '::1',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '169.254.169.254.',
    '1.2.3.4.5',
    'a.b.123',
    'foo.0x1f',
  ])('%s is an address', (host) => {
    expect(isAddressLiteral(host)).toBe(true);
  });

  it.each(['example.com', 'localhost', '1.example.com', '123.example.com', '0x7f.com', 'xn--bcher-kva.test', '1e100.net'])('%s is a name', (host) => {
    expect(isAddressLiteral(host)).toBe(false);
  });
});
