// Configuration parsing: TRUST_PROXY's forms, the server limits, the DNS blocklist zones, and the message a bad value stops the start with.
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

describe('server limits', () => {
  it('default: headers within 10 s, the whole request within 30 s, idle kept-alive connections 5 s, 10,000 connections', () => {
    expect(loadConfig({}).server).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5000, maxConnections: 10_000 });
  });

  it('reads HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS and MAX_CONNECTIONS', () => {
    const env = { HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '65000', MAX_CONNECTIONS: '50' };
    expect(loadConfig(env).server).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 65_000, maxConnections: 50 });
  });

  it.each([
    [{ HEADERS_TIMEOUT_MS: '10s' }, /^HEADERS_TIMEOUT_MS: "10s" is not a whole number$/],
    [{ HEADERS_TIMEOUT_MS: '999' }, /^HEADERS_TIMEOUT_MS: 999 is outside 1000\.\.600000$/],
    [{ REQUEST_TIMEOUT_MS: '0' }, /^REQUEST_TIMEOUT_MS: 0 is outside 1000\.\.3600000$/],
    [{ REQUEST_TIMEOUT_MS: '5000' }, /^REQUEST_TIMEOUT_MS: 5000 is shorter than HEADERS_TIMEOUT_MS \(10000\)/],
    [{ KEEP_ALIVE_TIMEOUT_MS: '0' }, /^KEEP_ALIVE_TIMEOUT_MS: 0 is outside 100\.\.600000$/],
    [{ MAX_CONNECTIONS: '0' }, /^MAX_CONNECTIONS: 0 is outside 1\.\.1000000$/],
    [{ MAX_CONNECTIONS: '-1' }, /^MAX_CONNECTIONS: "-1" is not a whole number$/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('DNSBL_DOMAIN_ZONES, DNSBL_IP_ZONES', () => {
  const zones = (env: Record<string, string>) => {
    const { dnsblDomainZones, dnsblIpZones } = loadConfig(env).network;
    return { domain: dnsblDomainZones, ip: dnsblIpZones };
  };

  it('none by default', () => {
    expect(zones({})).toEqual({ domain: [], ip: [] });
  });

  it('reads comma-separated zones, lower-cased, without a trailing dot or empty entries', () => {
    const env = { DNSBL_DOMAIN_ZONES: ' dbl.spamhaus.org , KEY123.dbl.dq.spamhaus.net.,', DNSBL_IP_ZONES: 'zen.spamhaus.org' };
    expect(zones(env)).toEqual({ domain: ['dbl.spamhaus.org', 'key123.dbl.dq.spamhaus.net'], ip: ['zen.spamhaus.org'] });
  });

  it.each([
    [
      { DNSBL_DOMAIN_ZONES: 'https://dbl.spamhaus.org' },
      /^DNSBL_DOMAIN_ZONES: "https:\/\/dbl\.spamhaus\.org" is not a DNS zone name; expected comma-separated zones such as dbl\.spamhaus\.org$/,
    ],
    [{ DNSBL_IP_ZONES: 'zen.spamhaus.org;bl.example' }, /^DNSBL_IP_ZONES: "zen\.spamhaus\.org;bl\.example" is not a DNS zone name/],
    [{ DNSBL_IP_ZONES: 'localhost' }, /^DNSBL_IP_ZONES: "localhost" is not a DNS zone name/],
    [{ DNSBL_IP_ZONES: '127.0.0.1' }, /^DNSBL_IP_ZONES: "127\.0\.0\.1" is not a DNS zone name/],
    [{ DNSBL_DOMAIN_ZONES: 'dbl.spamhaus.org,DBL.spamhaus.org' }, /^DNSBL_DOMAIN_ZONES: lists dbl\.spamhaus\.org twice$/],
    [{ DNSBL_DOMAIN_ZONES: `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example` }, /^DNSBL_DOMAIN_ZONES: ".*" is longer than 189 characters/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('DNS_CANARIES, DNS_CHECK_INTERVAL_SECONDS', () => {
  const network = (env: Record<string, string>) => {
    const { dnsCanaries, dnsCheckIntervalSeconds } = loadConfig(env).network;
    return { dnsCanaries, dnsCheckIntervalSeconds };
  };

  it('asks large mail providers every 5 minutes by default', () => {
    expect(network({})).toEqual({ dnsCanaries: ['gmail.com', 'outlook.com', 'yahoo.com'], dnsCheckIntervalSeconds: 300 });
  });

  it('reads comma-separated domains, lower-cased, each once; off or none turns the check off', () => {
    expect(network({ DNS_CANARIES: ' Example.COM , example.com,corp.internal ', DNS_CHECK_INTERVAL_SECONDS: '0' })).toEqual({
      dnsCanaries: ['example.com', 'corp.internal'],
      dnsCheckIntervalSeconds: 0,
    });
    expect(network({ DNS_CANARIES: 'off' }).dnsCanaries).toEqual([]);
    expect(network({ DNS_CANARIES: 'NONE' }).dnsCanaries).toEqual([]);
  });

  it.each([
    [{ DNS_CANARIES: 'gmail.com;outlook.com' }, /^DNS_CANARIES: "gmail\.com;outlook\.com" is not a domain name; expected comma-separated domains/],
    [{ DNS_CANARIES: '8.8.8.8' }, /^DNS_CANARIES: "8\.8\.8\.8" is not a domain name/],
    [{ DNS_CHECK_INTERVAL_SECONDS: '-1' }, /^DNS_CHECK_INTERVAL_SECONDS: /],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('DATA_UPDATE_INTERVAL', () => {
  it('is off by default and takes whole seconds up to a week', () => {
    expect(loadConfig({}).data.updateIntervalSeconds).toBe(0);
    expect(loadConfig({ DATA_UPDATE_INTERVAL: '86400' }).data.updateIntervalSeconds).toBe(86_400);
  });

  it.each(['-1', '1.5', 'daily', String(8 * 86_400)])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ DATA_UPDATE_INTERVAL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_UPDATE_INTERVAL: value })).toThrow(/DATA_UPDATE_INTERVAL/);
  });
});
