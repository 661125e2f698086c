// The blocklist questions against a real DNS server on 127.0.0.1: their names, and each answer kept for
// its TTL on the lookup's clock (errors never), as the DNS lookups keep theirs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocklistLookup, reversedAddress } from '../../src/network/blocklists.js';
import { createDnsLookup } from '../../src/network/dns.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

describe('reversedAddress', () => {
  it.each([
    ['81.2.69.142', '142.69.2.81'],
    ['::ffff:81.2.69.142', '142.69.2.81'],
    ['2001:db8::1', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2'],
    ['2A00:1450:4001:81D::200E', 'e.0.0.2.0.0.0.0.0.0.0.0.0.0.0.0.d.1.8.0.1.0.0.4.0.5.4.1.0.0.a.2'],
  ])('%s is asked as %s', (address, name) => {
    expect(reversedAddress(address)).toBe(name);
  });

  it('is null for a text that is no address', () => {
    expect(reversedAddress('example.com')).toBeNull();
    expect(reversedAddress('')).toBeNull();
  });
});

describe('blocklist answers', () => {
  let server: TestDnsServer;
  let now = 1_000_000;
  const zones = { domain: ['dbl.zone.test'], ip: ['zen.zone.test'] };

  beforeAll(async () => {
    server = await startDnsServer({
      'short.com.dbl.zone.test': { records: [{ type: 'A', address: '127.0.1.2', ttl: 60 }] },
      'failing.com.dbl.zone.test': { rcode: 'SERVFAIL' },
      '142.69.2.81.zen.zone.test': { records: [{ type: 'A', address: '127.0.0.4', ttl: 60 }] },
    });
  });
  afterAll(() => server.close());

  const lookupWith = (dns: ReturnType<typeof createDnsLookup>) => blocklistLookup(zones, dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }));

  it('keeps a listing for its TTL, then asks again', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1, now: () => now });
    expect(await lookupWith(dns).domain('short.com')).toEqual([{ zone: 'dbl.zone.test', answer: { status: 'ok', records: ['127.0.1.2'] } }]);
    now += 59_000;
    await lookupWith(dns).domain('short.com');
    expect(server.count('short.com.dbl.zone.test', 'A')).toBe(1);
    now += 2_000;
    await lookupWith(dns).domain('short.com');
    expect(server.count('short.com.dbl.zone.test', 'A')).toBe(2);
    dns.close();
  });

  it('asks the reversed IP under each IP zone', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
    expect(await lookupWith(dns).ip('81.2.69.142')).toEqual([{ zone: 'zen.zone.test', answer: { status: 'ok', records: ['127.0.0.4'] } }]);
    expect(await lookupWith(dns).ip('not an address')).toEqual([]);
    dns.close();
  });

  it('never keeps a failure, and answers NXDOMAIN as such', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
    const failing = await lookupWith(dns).domain('failing.com');
    expect(failing).toEqual([{ zone: 'dbl.zone.test', answer: { status: 'error', reason: 'servfail' } }]);
    await lookupWith(dns).domain('failing.com');
    expect(server.count('failing.com.dbl.zone.test', 'A')).toBe(2);
    expect(await lookupWith(dns).domain('clean.com')).toEqual([{ zone: 'dbl.zone.test', answer: { status: 'nxdomain' } }]);
    dns.close();
  });

  it('asks nothing without zones', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
    const before = server.questions.length;
    const none = blocklistLookup({ domain: [], ip: [] }, dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) }));
    expect(await none.domain('short.com')).toEqual([]);
    expect(await none.ip('81.2.69.142')).toEqual([]);
    expect(server.questions.length).toBe(before);
    dns.close();
  });
});
