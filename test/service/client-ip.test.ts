// Which address is the client: the socket's peer, or the X-Forwarded-For entry the trusted proxies
// vouch for. Never the leftmost entry on the word of the client, never null when the socket has a peer.
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../src/address-text.js';
import { loadConfig, type TrustProxy } from '../../src/config.js';
import { clientAddress, forwardedClient } from '../../src/service/client-ip.js';

const trust = (value: string): TrustProxy => loadConfig({ TRUST_PROXY: value }).trustProxy;
const v4 = (ipv4_address: string) => ({ ipv4_address, ipv6_address: null });
const v6 = (ipv6_address: string) => ({ ipv4_address: null, ipv6_address });

const SOCKET = '10.0.0.2';

describe('parseAddress: the notations proxies write', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['192.0.2.1:443', '192.0.2.1'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::ffff:192.0.2.9', '192.0.2.9'],
  ])('reads %j as %s', (text, expected) => {
    expect(parseAddress(text)?.toString()).toBe(expected);
  });

  it.each(['', 'unknown', 'example.com', '127.1', '0x7f.0.0.1', '2130706433', '192.0.2.1:port', '1.2.3.4.5', '[192.0.2.1]', '2001:db8::1::2'])(
    'refuses %j',
    (text) => {
      expect(parseAddress(text)).toBeNull();
    },
  );

  it('answers both fields null for a socket with no readable peer', () => {
    expect(clientAddress(undefined)).toEqual({ ipv4_address: null, ipv6_address: null });
  });
});

describe('forwardedClient', () => {
  it.each([
    // [TRUST_PROXY, X-Forwarded-For, expected client]
    ['false', '198.51.100.23, 203.0.113.200', v4(SOCKET)],
    ['false', undefined, v4(SOCKET)],
    ['true', '198.51.100.23, 203.0.113.200', v4('203.0.113.200')],
    ['1', '198.51.100.23, 203.0.113.200', v4('203.0.113.200')],
    ['1', '198.51.100.23,203.0.113.200', v4('203.0.113.200')],
    ['2', '198.51.100.23, 203.0.113.200', v4('198.51.100.23')],
    ['2', '6.6.6.6, 198.51.100.23, 203.0.113.200', v4('198.51.100.23')],
    ['1', '2001:db8::5', v6('2001:db8::5')],
    ['1', '::ffff:192.0.2.9', v4('192.0.2.9')],
    ['1', '[2001:db8::5]:51234', v6('2001:db8::5')],
    // too few entries, none, or garbage where the trusted hop should be → the socket's peer
    ['3', '198.51.100.23, 203.0.113.200', v4(SOCKET)],
    ['1', undefined, v4(SOCKET)],
    ['1', '', v4(SOCKET)],
    ['1', '198.51.100.23, unknown', v4(SOCKET)],
    ['1', '198.51.100.23, ', v4(SOCKET)],
    ['2', 'garbage, 203.0.113.200', v4(SOCKET)],
    // garbage further left than the trusted hop does not matter
    ['1', 'garbage, 203.0.113.200', v4('203.0.113.200')],
  ] as const)('TRUST_PROXY=%s, X-Forwarded-For %j → %j', (mode, xff, expected) => {
    expect(forwardedClient(SOCKET, xff, trust(mode))).toEqual(expected);
  });

  it.each([
    // [trusted ranges, socket, X-Forwarded-For, expected]
    ['10.0.0.0/8', SOCKET, '198.51.100.23, 203.0.113.200', v4('203.0.113.200')],
    // the walk passes every trusted proxy and stops at the first untrusted address
    ['10.0.0.0/8', SOCKET, '6.6.6.6, 198.51.100.23, 10.1.2.3, 10.9.9.9', v4('198.51.100.23')],
    ['10.0.0.0/8,127.0.0.1/32', SOCKET, '6.6.6.6, 203.0.113.7, 127.0.0.1', v4('203.0.113.7')],
    // a peer outside the ranges is the client, whatever it forwards
    ['10.0.0.0/8', '198.51.100.99', '6.6.6.6, 203.0.113.200', v4('198.51.100.99')],
    // IPv4 ranges match an IPv4 peer on an IPv6 socket
    ['10.0.0.0/8', '::ffff:10.0.0.2', '6.6.6.6, 203.0.113.200', v4('203.0.113.200')],
    ['2001:db8:ffff::/48', '2001:db8:ffff::1', '6.6.6.6, 2001:db8:1::7', v6('2001:db8:1::7')],
    ['loopback', '::1', '203.0.113.200', v4('203.0.113.200')],
    ['loopback', '127.0.0.1', '203.0.113.200', v4('203.0.113.200')],
    // every hop trusted: the leftmost, appended by a trusted proxy, is the client
    ['10.0.0.0/8', SOCKET, '10.5.5.5, 10.1.2.3', v4('10.5.5.5')],
    // nothing forwarded, or garbage reached during the walk → the socket's peer
    ['10.0.0.0/8', SOCKET, undefined, v4(SOCKET)],
    ['10.0.0.0/8', SOCKET, '6.6.6.6, unknown, 10.1.2.3', v4(SOCKET)],
    ['10.0.0.0/8', SOCKET, '203.0.113.200, ', v4(SOCKET)],
  ] as const)('TRUST_PROXY=%s, peer %s, X-Forwarded-For %j → %j', (ranges, socket, xff, expected) => {
    expect(forwardedClient(socket, xff, trust(ranges))).toEqual(expected);
  });
});
