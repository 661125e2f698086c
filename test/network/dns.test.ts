// DNS lookups against a real DNS server on 127.0.0.1 (dns2): answers, error mapping, the memory and
// negative caches with TTLs on an injected clock, the request's budget signal, and the domain facts table.
import { createSocket } from 'node:dgram';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseDnsServers } from '../../src/address-text.js';
import { answerFromError, createDnsLookup, type DnsOptions, type DnsService } from '../../src/network/dns.js';
import type { Store } from '../../src/store/database.js';
import type { DomainFacts } from '../../src/store/domain-facts.js';
import { openSecondStore, openSqliteTestStore } from '../support/databases.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

let server: TestDnsServer;
const services: DnsService[] = [];

beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server.close());
afterEach(() => {
  for (const service of services.splice(0)) service.close();
});

/** A lookup service against the test server: short timeout, one try, so silent names fail fast. */
function service(options: DnsOptions = {}): DnsService {
  const created = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1, ...options });
  services.push(created);
  return created;
}

/** A clock the test moves by hand. */
function manualClock(start = 1_700_000_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

/** A request with `budget` ms to spend. */
const request = (budget = 1500, persist = false) => ({ persist, signal: AbortSignal.timeout(budget) });
/** A request whose budget is already spent. */
const spent = { persist: false, signal: AbortSignal.abort() };

describe('answers from the server', () => {
  it.each([
    ['mx', 'mx.test', { status: 'ok', records: [{ exchange: 'mail.mx.test', priority: 10 }] }],
    ['mx', 'nullmx.test', { status: 'ok', records: [{ exchange: '', priority: 0 }] }],
    ['mx', 'ipmx.test', { status: 'ok', records: [{ exchange: '192.0.2.1', priority: 10 }] }],
    ['mx', 'aonly.test', { status: 'nodata' }],
    ['mx', 'nx.test', { status: 'nxdomain' }],
    ['mx', 'not-in-the-zone.test', { status: 'nxdomain' }],
    ['mx', 'servfail.test', { status: 'error', reason: 'servfail' }],
    ['mx', 'refused.test', { status: 'error', reason: 'refused' }],
    ['a', 'aonly.test', { status: 'ok', records: ['192.0.2.20'] }],
    ['a', 'multi.test', { status: 'ok', records: ['192.0.2.11', '192.0.2.12'] }],
    ['a', 'v6only.test', { status: 'nodata' }],
    ['aaaa', 'aonly.test', { status: 'ok', records: ['2001:db8::20'] }],
    ['aaaa', 'mx.test', { status: 'nodata' }],
    ['aaaa', 'nx.test', { status: 'nxdomain' }],
  ] as const)('%s %s', async (kind, domain, expected) => {
    const answer = await service().forRequest(request())[kind](domain);
    expect(answer).toEqual(expected);
  });

  it('asks in lower case without the trailing dot', async () => {
    const before = server.count('aonly.test', 'A');
    expect(await service().forRequest(request()).a('AOnly.TEST.')).toEqual({ status: 'ok', records: ['192.0.2.20'] });
    expect(server.count('aonly.test', 'A')).toBe(before + 1);
  });

  it.each([
    ['Example.COM.', 'example.com'],
    ['_dmarc.example.com', '_dmarc.example.com'],
    ['xn--bcher-kva.test', 'xn--bcher-kva.test'],
    [`${'a'.repeat(63)}.test`, `${'a'.repeat(63)}.test`],
  ])('asks about %j as %j', async (domain, asked) => {
    const before = server.count(asked, 'MX');
    expect(await service().forRequest(request()).mx(domain)).not.toEqual({ status: 'error', reason: 'invalid domain name' });
    expect(server.count(asked, 'MX')).toBe(before + 1);
  });

  it.each(['', '.', 'a..b', 'bücher.test', 'exa mple.test', '[192.0.2.1]', `${'a'.repeat(64)}.test`, `${'a.'.repeat(127)}ab`])(
    'refuses %j without asking',
    async (domain) => {
      const before = server.questions.length;
      expect(await service().forRequest(request()).mx(domain)).toEqual({ status: 'error', reason: 'invalid domain name' });
      expect(server.questions.length).toBe(before);
    },
  );

  it('answers "connection refused" when nothing listens at the server address', async () => {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    const dead = createDnsLookup({ servers: [`127.0.0.1:${port}`], timeoutMs: 200, tries: 1 });
    services.push(dead);
    const answer = await dead.forRequest(request()).mx('mx.test');
    expect(answer.status).toBe('error');
  });
});

describe('the memory cache', () => {
  it('answers a second question from memory: the server is asked once', async () => {
    const dns = service();
    const before = server.count('mx.test', 'MX');
    await dns.forRequest(request()).mx('mx.test');
    expect(await dns.forRequest(request()).mx('mx.test')).toEqual({ status: 'ok', records: [{ exchange: 'mail.mx.test', priority: 10 }] });
    expect(server.count('mx.test', 'MX')).toBe(before + 1);
  });

  it('shares one question among concurrent identical lookups', async () => {
    const dns = service();
    const before = server.count('multi.test', 'MX');
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => dns.forRequest(request()).mx('multi.test')));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(server.count('multi.test', 'MX')).toBe(before + 1);
  });

  it('keeps NXDOMAIN and NODATA (negative cache) for negativeTtlMs', async () => {
    const clock = manualClock();
    const dns = service({ now: clock.now, negativeTtlMs: 60_000 });
    const nx = server.count('nx.test', 'MX');
    const nodata = server.count('aonly.test', 'MX');
    for (let i = 0; i < 2; i++) {
      expect(await dns.forRequest(request()).mx('nx.test')).toEqual({ status: 'nxdomain' });
      expect(await dns.forRequest(request()).mx('aonly.test')).toEqual({ status: 'nodata' });
    }
    expect([server.count('nx.test', 'MX'), server.count('aonly.test', 'MX')]).toEqual([nx + 1, nodata + 1]);
    clock.advance(60_001);
    await dns.forRequest(request()).mx('nx.test');
    expect(server.count('nx.test', 'MX')).toBe(nx + 2);
  });

  it('never keeps errors: SERVFAIL is asked again', async () => {
    const dns = service();
    const before = server.count('servfail.test', 'MX');
    await dns.forRequest(request()).mx('servfail.test');
    expect(await dns.forRequest(request()).mx('servfail.test')).toEqual({ status: 'error', reason: 'servfail' });
    expect(server.count('servfail.test', 'MX')).toBe(before + 2);
  });

  it("honours an A record's TTL (2 s in the zone)", async () => {
    const clock = manualClock();
    const dns = service({ now: clock.now });
    const before = server.count('shortttl.test', 'A');
    await dns.forRequest(request()).a('shortttl.test');
    clock.advance(1_900);
    await dns.forRequest(request()).a('shortttl.test');
    expect(server.count('shortttl.test', 'A')).toBe(before + 1);
    clock.advance(200);
    expect(await dns.forRequest(request()).a('shortttl.test')).toEqual({ status: 'ok', records: ['192.0.2.40'] });
    expect(server.count('shortttl.test', 'A')).toBe(before + 2);
  });

  it('keeps MX answers for mxTtlMs (node reports no MX TTL)', async () => {
    const clock = manualClock();
    const dns = service({ now: clock.now, mxTtlMs: 10_000 });
    const before = server.count('ipmx.test', 'MX');
    await dns.forRequest(request()).mx('ipmx.test');
    clock.advance(9_999);
    await dns.forRequest(request()).mx('ipmx.test');
    clock.advance(2);
    await dns.forRequest(request()).mx('ipmx.test');
    expect(server.count('ipmx.test', 'MX')).toBe(before + 2);
  });

  it('caps any TTL at maxTtlMs', async () => {
    const clock = manualClock();
    const dns = service({ now: clock.now, maxTtlMs: 1_000 });
    const before = server.count('aonly.test', 'AAAA');
    await dns.forRequest(request()).aaaa('aonly.test');
    clock.advance(1_001);
    await dns.forRequest(request()).aaaa('aonly.test');
    expect(server.count('aonly.test', 'AAAA')).toBe(before + 2);
  });

  it('is bounded: the least recently used answer goes first', async () => {
    const dns = service({ maxEntries: 2 });
    const before = server.count('mx.test', 'MX');
    const lookup = () => dns.forRequest(request());
    await lookup().mx('mx.test');
    await lookup().mx('multi.test');
    await lookup().mx('mx.test'); // hit: mx.test is now the most recent
    await lookup().mx('ipmx.test'); // evicts multi.test
    await lookup().mx('mx.test');
    expect(server.count('mx.test', 'MX')).toBe(before + 1);
    const multi = server.count('multi.test', 'MX');
    await lookup().mx('multi.test');
    expect(server.count('multi.test', 'MX')).toBe(multi + 1);
  });
});

describe('the request budget', () => {
  it('waits for a silent server until the budget is spent, then answers "budget"', async () => {
    const dns = service({ timeoutMs: 2_000, tries: 2 });
    const budget = new AbortController();
    const asked = server.count('silent.test', 'MX');
    let settled = false;
    const answer = dns
      .forRequest({ persist: false, signal: budget.signal })
      .mx('silent.test')
      .finally(() => {
        settled = true;
      });
    await expect.poll(() => server.count('silent.test', 'MX')).toBeGreaterThan(asked);
    expect(settled).toBe(false);
    budget.abort();
    expect(await answer).toEqual({ status: 'error', reason: 'budget' });
  });

  it('answers "timeout" when the resolver gives up before the budget is spent', async () => {
    const answer = await service({ timeoutMs: 100, tries: 1 }).forRequest(request(5_000)).a('silent.test');
    expect(answer).toEqual({ status: 'error', reason: 'timeout' });
  });

  it('asks nothing once the budget is spent, but still gives remembered answers', async () => {
    const dns = service();
    await dns.forRequest(request()).mx('mx.test');
    const before = server.questions.length;
    expect(await dns.forRequest(spent).mx('multi.test')).toEqual({ status: 'error', reason: 'budget' });
    expect((await dns.forRequest(spent).mx('mx.test')).status).toBe('ok');
    expect(server.questions.length).toBe(before);
  });

  it('lets a later request use the answer a timed-out request was waiting for', async () => {
    const dns = service();
    const budget = new AbortController();
    const first = dns.forRequest({ persist: false, signal: budget.signal }).a('mail.mx.test');
    budget.abort(); // before any answer can arrive: the request gives up, the question goes on
    expect(await first).toEqual({ status: 'error', reason: 'budget' });
    // A spent request asks nothing and gets only remembered answers: this one once the question's answer is in.
    await expect.poll(() => dns.forRequest(spent).a('mail.mx.test')).toEqual({ status: 'ok', records: ['192.0.2.25'] });
    expect(await dns.forRequest(request()).a('mail.mx.test')).toEqual({ status: 'ok', records: ['192.0.2.25'] });
    expect(server.count('mail.mx.test', 'A')).toBe(1);
  });
});

describe('the cap on questions in flight', () => {
  it('answers "too many DNS lookups at once" past maxInFlight, and asks again once a question ends', async () => {
    const dns = service({ maxInFlight: 1, timeoutMs: 300, tries: 1 });
    const silent = dns.forRequest(request(5_000)).mx('silent.test');
    const before = server.count('mx.test', 'MX');
    expect(await dns.forRequest(request()).mx('mx.test')).toEqual({ status: 'error', reason: 'too many DNS lookups at once' });
    expect(server.count('mx.test', 'MX')).toBe(before);
    expect(await silent).toEqual({ status: 'error', reason: 'timeout' });
    expect((await dns.forRequest(request()).mx('mx.test')).status).toBe('ok');
  });
});

describe('the domain facts table (SQLite)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openSqliteTestStore();
  });
  afterAll(() => store.close());

  it('stores ok, NXDOMAIN and NODATA answers when the request persists', async () => {
    const dns = service({ domainFacts: store.domainFacts });
    const lookup = dns.forRequest(request(1500, true));
    await lookup.mx('mx.test');
    await lookup.mx('nx.test');
    await lookup.mx('aonly.test');
    await lookup.a('aonly.test');
    await dns.flush();
    expect((await store.domainFacts.get('mx.test', 'dns:mx'))?.value).toEqual({ status: 'ok', records: [{ exchange: 'mail.mx.test', priority: 10 }] });
    expect((await store.domainFacts.get('nx.test', 'dns:mx'))?.value).toEqual({ status: 'nxdomain' });
    expect((await store.domainFacts.get('aonly.test', 'dns:mx'))?.value).toEqual({ status: 'nodata' });
    const a = await store.domainFacts.get('aonly.test', 'dns:a');
    expect(a?.value).toEqual({ status: 'ok', records: ['192.0.2.20'] });
    // The A record's TTL (300 s in the zone) is the row's lifetime.
    expect((a?.expiresAt ?? 0) - (a?.updatedAt ?? 0)).toBeGreaterThan(290_000);
    expect((a?.expiresAt ?? 0) - (a?.updatedAt ?? 0)).toBeLessThanOrEqual(300_000);
  });

  it('writes nothing when the request does not persist (soft_check)', async () => {
    const dns = service({ domainFacts: store.domainFacts });
    await dns.forRequest(request(1500, false)).mx('multi.test');
    await dns.flush();
    expect(await store.domainFacts.get('multi.test', 'dns:mx')).toBeNull();
  });

  it('never writes errors', async () => {
    const dns = service({ domainFacts: store.domainFacts });
    await dns.forRequest(request(1500, true)).mx('servfail.test');
    await dns.flush();
    expect(await store.domainFacts.get('servfail.test', 'dns:mx')).toBeNull();
  });

  it('writes a remembered answer once a persisting request sees it', async () => {
    const dns = service({ domainFacts: store.domainFacts });
    await dns.forRequest(request(1500, false)).a('multi.test');
    await dns.flush();
    expect(await store.domainFacts.get('multi.test', 'dns:a')).toBeNull();
    await dns.forRequest(request(1500, true)).a('multi.test');
    await dns.flush();
    expect((await store.domainFacts.get('multi.test', 'dns:a'))?.value).toEqual({ status: 'ok', records: ['192.0.2.11', '192.0.2.12'] });
  });

  it('lets a second service instance answer from the table without asking', async () => {
    const first = service({ domainFacts: store.domainFacts });
    await first.forRequest(request(1500, true)).mx('ipmx.test');
    await first.flush();
    const second = await openSecondStore(store);
    try {
      const before = server.count('ipmx.test', 'MX');
      const other = service({ domainFacts: second.domainFacts });
      expect(await other.forRequest(request()).mx('ipmx.test')).toEqual({ status: 'ok', records: [{ exchange: '192.0.2.1', priority: 10 }] });
      expect(await other.forRequest(request()).mx('ipmx.test')).toEqual({ status: 'ok', records: [{ exchange: '192.0.2.1', priority: 10 }] });
      expect(server.count('ipmx.test', 'MX')).toBe(before);
    } finally {
      await second.close();
    }
  });

  it('asks the server when the stored answer has expired', async () => {
    const clock = manualClock(Date.now());
    await store.domainFacts.put('v6only.test', 'dns:aaaa', { status: 'ok', records: ['2001:db8::99'] }, 1_000, clock.now());
    const dns = service({ domainFacts: store.domainFacts, now: clock.now });
    expect(await dns.forRequest(request()).aaaa('v6only.test')).toEqual({ status: 'ok', records: ['2001:db8::99'] });
    const before = server.count('v6only.test', 'AAAA');
    clock.advance(1_001);
    expect(await dns.forRequest(request()).aaaa('v6only.test')).toEqual({ status: 'ok', records: ['2001:db8::21'] });
    expect(server.count('v6only.test', 'AAAA')).toBe(before + 1);
  });

  it('ignores a stored value of the wrong shape', async () => {
    await store.domainFacts.put('empty.test', 'dns:mx', { status: 'ok', records: ['not an mx'] }, 60_000);
    const dns = service({ domainFacts: store.domainFacts });
    expect(await dns.forRequest(request()).mx('empty.test')).toEqual({ status: 'nodata' });
  });
});

describe('a failing domain facts table', () => {
  it('is reported and bypassed: the answer comes from the server', async () => {
    const errors: unknown[] = [];
    const broken: Pick<DomainFacts, 'get' | 'put'> = {
      get: () => Promise.reject(new Error('database is down')),
      put: () => Promise.reject(new Error('database is down')),
    };
    const dns = service({ domainFacts: broken, onError: (error) => errors.push(error) });
    expect((await dns.forRequest(request(1500, true)).mx('mx.test')).status).toBe('ok');
    await dns.flush();
    expect(errors.map((e) => (e as Error).message)).toEqual(['database is down', 'database is down']);
  });
});

describe('helpers', () => {
  it.each([
    ['ENOTFOUND', { status: 'nxdomain' }],
    ['ENODATA', { status: 'nodata' }],
    ['ESERVFAIL', { status: 'error', reason: 'servfail' }],
    ['EREFUSED', { status: 'error', reason: 'refused' }],
    ['ETIMEOUT', { status: 'error', reason: 'timeout' }],
    ['ECONNREFUSED', { status: 'error', reason: 'connection refused' }],
    ['EBADRESP', { status: 'error', reason: 'ebadresp' }],
  ])('maps %s', (code, expected) => {
    expect(answerFromError(Object.assign(new Error(code), { code }))).toEqual(expected);
  });

  it('maps a rejection without a code to an error', () => {
    expect(answerFromError(new Error('boom'))).toEqual({ status: 'error', reason: 'resolver error' });
  });

  it('parses DNS_SERVERS', () => {
    expect(parseDnsServers('1.1.1.1, 9.9.9.9:5353,[2001:db8::1]:53,2001:db8::2')).toEqual(['1.1.1.1', '9.9.9.9:5353', '[2001:db8::1]:53', '2001:db8::2']);
    expect(parseDnsServers(' ')).toEqual([]);
    for (const bad of ['dns.google', '1.1.1.1:0', '1.1.1.1:65536', '[1.1.1.1]:53', '2001:db8::1:53:x', '300.1.1.1']) {
      expect(() => parseDnsServers(bad), bad).toThrow(bad);
    }
  });
});
