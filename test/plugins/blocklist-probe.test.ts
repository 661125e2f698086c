// The start-up probe of the DNS blocklists (RFC 5782, section 5) against a real DNS server on 127.0.0.1
// that answers as real zones do: a zone that lists its test entry is ok; one that refuses (127.255.255.254,
// a public resolver), lists no test entry (a misspelt zone), lists what no zone lists (a resolver rewriting
// NXDOMAIN) or does not answer is named, with what to do.
import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeBlocklists } from '../../plugins/blocklist-probe.js';
import { blocklistLookup } from '../../src/network/blocklists.js';
import { createDnsLookup } from '../../src/network/dns.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

const a = (address: string) => ({ records: [{ type: 'A' as const, address }] });

describe('probeBlocklists', () => {
  let server: TestDnsServer;
  beforeAll(async () => {
    server = await startDnsServer({
      // dbl.good.test lists Spamhaus's documented test domain; rfc.good.test RFC 5782's `test`.
      'dbltest.com.dbl.good.test': a('127.0.1.2'),
      'test.rfc.good.test': a('127.0.1.2'),
      '2.0.0.127.zen.good.test': a('127.0.0.2'),
      'test.dbl.refusing.test': a('127.255.255.254'),
      'dbltest.com.dbl.refusing.test': a('127.255.255.254'),
      '2.0.0.127.zen.refusing.test': a('127.255.255.254'),
      'test.dbl.rewriting.test': a('192.0.2.99'),
      'dbltest.com.dbl.rewriting.test': a('192.0.2.99'),
      'invalid.dbl.rewriting.test': a('127.0.0.2'),
      'test.dbl.silent.test': { silent: true },
      'dbltest.com.dbl.silent.test': { silent: true },
      'invalid.dbl.silent.test': { silent: true },
    });
  });
  afterAll(() => server.close());

  it('names each zone that does not answer as a zone should, with what to do', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
    const zones = {
      domain: ['dbl.good.test', 'rfc.good.test', 'dbl.refusing.test', 'dbl.misspelt.test', 'dbl.rewriting.test', 'dbl.silent.test'],
      ip: ['zen.good.test', 'zen.refusing.test', 'zen.misspelt.test'],
    };
    // One signal for every zone's question, as serve's probe has (its request budget takes any number of listeners).
    const signal = AbortSignal.timeout(1500);
    setMaxListeners(0, signal);
    const probes = await probeBlocklists(blocklistLookup(zones, dns.forRequest({ persist: false, signal })));
    dns.close();
    expect(probes.map(({ zone, kind, health }) => ({ zone, kind, health }))).toEqual([
      { zone: 'dbl.good.test', kind: 'domain', health: 'ok' },
      { zone: 'rfc.good.test', kind: 'domain', health: 'ok' },
      { zone: 'dbl.refusing.test', kind: 'domain', health: 'refused' },
      { zone: 'dbl.misspelt.test', kind: 'domain', health: 'test_not_listed' },
      { zone: 'dbl.rewriting.test', kind: 'domain', health: 'lists_everything' },
      { zone: 'dbl.silent.test', kind: 'domain', health: 'unreachable' },
      { zone: 'zen.good.test', kind: 'ip', health: 'ok' },
      { zone: 'zen.refusing.test', kind: 'ip', health: 'refused' },
      { zone: 'zen.misspelt.test', kind: 'ip', health: 'test_not_listed' },
    ]);
    const advice = Object.fromEntries(probes.map((p) => [p.zone, p.advice]));
    expect(advice['dbl.good.test']).toBe('');
    expect(advice['dbl.refusing.test']).toContain('DQS key');
    expect(advice['dbl.misspelt.test']).toContain("check the zone's name");
    expect(advice['dbl.rewriting.test']).toContain('DNS_SERVERS');
    expect(advice['dbl.silent.test']).toContain('did not answer');
  });

  it('asks nothing without zones', async () => {
    const dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
    expect(await probeBlocklists(blocklistLookup({ domain: [], ip: [] }, dns.forRequest({ persist: false, signal: AbortSignal.timeout(1500) })))).toEqual([]);
    dns.close();
  });
});
