// Configuration parsing: TRUST_PROXY's forms, and the message a bad value stops the start with.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const trustProxy = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).trustProxy;

describe('TRUST_PROXY', () => {
  it.each([undefined, '', 'false', 'off', 'FALSE', '0'])('%j: no proxy, the socket peer is the client', (value) => {
    expect(trustProxy(value)).toEqual({ kind: 'off' });
  });

  it.each([
    ['true', 1],
    ['on', 1],
    ['1', 1],
    ['2', 2],
    [' 100 ', 100],
  ])('%j: %i trusted hop(s)', (value, hops) => {
    expect(trustProxy(value)).toEqual({ kind: 'hops', hops });
  });

  it('a list of addresses and CIDRs: trusted proxy ranges (a bare address is a /32 or /128)', () => {
    const parsed = trustProxy('10.0.0.0/8, 127.0.0.1, 2001:db8::/32, ::1');
    expect(parsed.kind).toBe('proxies');
    const ranges = parsed.kind === 'proxies' ? parsed.ranges.map(([address, bits]) => `${address.toString()}/${bits}`) : [];
    expect(ranges).toEqual(['10.0.0.0/8', '127.0.0.1/32', '2001:db8::/32', '::1/128']);
  });

  it('"loopback" stands for 127.0.0.0/8 and ::1/128', () => {
    const parsed = trustProxy('loopback');
    const ranges = parsed.kind === 'proxies' ? parsed.ranges.map(([address, bits]) => `${address.toString()}/${bits}`) : [];
    expect(ranges).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it.each([
    ['101', /TRUST_PROXY: 101 hops is outside 1\.\.100/],
    ['yes please', /TRUST_PROXY: "yes please" is not an address, a CIDR or "loopback"/],
    ['10.0.0.0/33', /"10\.0\.0\.0\/33" is not/],
    ['2001:db8::/129', /"2001:db8::\/129" is not/],
    ['10.0.0.0/8,', /"" is not/],
    ['10.0.0.0/8/8', /is not an address/],
    ['127.1', /"127\.1" is not/],
    ['example.com', /"example\.com" is not/],
  ])('refuses %j, naming the variable and what is allowed', (value, message) => {
    expect(() => trustProxy(value)).toThrow(ConfigError);
    expect(() => trustProxy(value)).toThrow(message);
    expect(() => trustProxy(value)).toThrow(/true \(exactly one proxy hop\), a number of trusted proxy hops 1\.\.100, or a comma-separated list/);
  });
});
