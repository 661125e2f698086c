// The website probe against real servers on 127.0.0.1: a DNS server (dns2) with a zone of its own,
// and one site handler behind both an HTTP and an HTTPS (self-signed) server. Loopback is let through
// only where a test sets allowLoopbackForTests; no test ever contacts another address.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebsiteProbe, probeName, WEBSITE_FACT, type WebsiteOptions } from '../../src/network/website.js';
import type { Store } from '../../src/store/database.js';
import { openSqliteTestStore } from '../support/databases.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../support/dns-server.js';

// Self-signed P-256 certificate for the HTTPS test server (CN "email-trust test", valid to 2126).
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgzr4dmK5Ee3qxoNkM
F5jj33cmpfkK+6F6hkWBpu21zXKhRANCAAROCKavU2mYVQCb9MAPMaZPB03fG/0o
3IfREpudINdVDHXXtwk5IT78Jr5M43m2m5d0gW7bXE3MW3fFJDW1en3L
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBjjCCATOgAwIBAgIUB3o1WDNNsjMbQTJ8mN4AxnEY2L8wCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQZW1haWwtdHJ1c3QgdGVzdDAgFw0yNjExMjIwNDE2NDdaGA8y
MTI2MTAyOTA0MTY0N1owGzEZMBcGA1UEAwwQZW1haWwtdHJ1c3QgdGVzdDBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABE4Ipq9TaZhVAJv0wA8xpk8HTd8b/Sjch9ES
m50g11UMdde3CTkhPvwmvkzjebabl3SBbttcTcxbd8UkNbV6fcujUzBRMB0GA1Ud
DgQWBBTD397IRY9NSLPyldHHLHBDlZoCtjAfBgNVHSMEGDAWgBTD397IRY9NSLPy
ldHHLHBDlZoCtjAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQC5
DeLjOeZgaaMUBwpYkBAHJoof8B49BzcSmrtx77+0TgIhAOdblTCBCHl3DsxdEL5S
Rf4ouJC6MTJMj/h7WWJBggMe
-----END CERTIFICATE-----`;

const LOOPBACK = { records: [{ type: 'A' as const, address: '127.0.0.1' }] };
const ZONE: Zone = {
  // Names that resolve to refused addresses.
  'loop.test': LOOPBACK,
  'private.test': { records: [{ type: 'A', address: '10.0.0.1' }] },
  'metadata.test': { records: [{ type: 'A', address: '169.254.169.254' }] },
  'v6loop.test': { records: [{ type: 'AAAA', address: '::1' }] },
  'mapped.test': { records: [{ type: 'AAAA', address: '::ffff:7f00:1' }] }, // ::ffff:127.0.0.1 (dns2 cannot encode the dotted form)
  'cgnat.test': { records: [{ type: 'A', address: '100.64.0.1' }] },
  'ula.test': { records: [{ type: 'AAAA', address: 'fd00:ec2::254' }] },
  'mixed.test': {
    records: [
      { type: 'A', address: '127.0.0.1' },
      { type: 'A', address: '10.0.0.1' },
    ],
  },
  // Sites on the test servers (127.0.0.1; reachable only with the test allowance).
  'site.test': LOOPBACK,
  'secure.test': LOOPBACK,
  'redirect-www.test': LOOPBACK,
  'redirect-https.test': LOOPBACK,
  'away.test': LOOPBACK,
  'missing.test': LOOPBACK,
  'broken.test': LOOPBACK,
  'nohead.test': LOOPBACK,
  'auth.test': LOOPBACK,
  'slow.test': LOOPBACK,
  'www.wwwonly.test': LOOPBACK,
  'nx.test': { rcode: 'NXDOMAIN' },
  'empty.test': { records: [] },
  'servfail.test': { rcode: 'SERVFAIL' },
};

/** What the sites answer per Host (port stripped); the same on both schemes unless `scheme` is tested. */
function site(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https'): undefined {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const send = (status: number, headers: Record<string, string> = {}): undefined => {
    res.writeHead(status, headers).end(req.method === 'HEAD' ? undefined : 'x');
  };
  switch (host) {
    case 'site.test':
    case 'www.wwwonly.test':
    case 'localhost':
      return send(200);
    case 'secure.test':
      return scheme === 'https' ? send(200) : send(404);
    case 'redirect-www.test':
      return send(301, { location: 'http://www.redirect-www.test/' });
    case 'redirect-https.test':
      return scheme === 'http' ? send(308, { location: 'https://redirect-https.test/home' }) : send(302, { location: '/home' });
    case 'away.test':
      return send(302, { location: 'https://parking.example/?d=away.test' });
    case 'broken.test':
      return send(503);
    case 'nohead.test':
      return req.method === 'HEAD' ? send(405) : send(200);
    case 'auth.test':
      return send(401, { 'www-authenticate': 'Basic' });
    case 'slow.test':
      return; // never answers
    default:
      return send(404);
  }
}

interface Sites {
  ports: { https: number; http: number };
  /** Requests received per Host. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function listen(server: Server | ReturnType<typeof createHttpsServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startSites(): Promise<Sites> {
  const hits = new Map<string, number>();
  const count = (req: IncomingMessage) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(host, (hits.get(host) ?? 0) + 1);
  };
  const plain = createHttpServer((req, res) => {
    count(req);
    site(req, res, 'http');
  });
  const secure = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (req, res) => {
    count(req);
    site(req, res, 'https');
  });
  const ports = { http: await listen(plain), https: await listen(secure) };
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { ports, hits, close: async () => void (await Promise.all([close(plain), close(secure)])) };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let dns: TestDnsServer;
let sites: Sites;
beforeAll(async () => {
  dns = await startDnsServer(ZONE);
  sites = await startSites();
});
afterAll(async () => {
  await sites.close();
  await dns.close();
});

/** A request with `ms` to spend. */
const soon = (ms = 3000, persist = false) => ({ persist, signal: AbortSignal.timeout(ms) });
/** A request whose budget is already spent. */
const spent = { persist: false, signal: AbortSignal.abort() };
/** A probe that resolves through the test DNS server; loopback stays refused unless the test allows it. */
const probe = (options: WebsiteOptions = {}) => createWebsiteProbe({ servers: [dns.server], ...options });
const testProbe = (options: WebsiteOptions = {}) => probe({ allowLoopbackForTests: true, portsForTests: sites.ports, ...options });

describe('the website probe refuses what is not a public address', () => {
  it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', '::1', '::ffff:127.0.0.1', '0x7f.1', '2130706433', '0177.0.0.1', '127.1', '[192.0.2.1]'])(
    'the literal %s, before any resolution',
    async (domain) => {
      const questions = dns.questions.length;
      expect(await probe({ allowLoopbackForTests: true }).forRequest(soon()).hasWebsite(domain)).toEqual({ status: 'unknown', reason: 'not a host name' });
      expect(dns.questions.length).toBe(questions);
    },
  );

  it.each<[string, string]>([
    ['loop.test', '127.0.0.1 (loopback)'],
    ['private.test', '10.0.0.1 (private)'],
    ['metadata.test', '169.254.169.254 (metadata)'],
    ['v6loop.test', '::1 (loopback)'],
    ['mapped.test', '::ffff:127.0.0.1 (loopback)'],
    ['cgnat.test', '100.64.0.1 (carrierGradeNat)'],
    ['ula.test', 'fd00:ec2::254 (metadata)'],
  ])('the name %s, after resolution', async (domain, refusal) => {
    expect(await probe().forRequest(soon()).hasWebsite(domain)).toEqual({ status: 'unknown', reason: `address refused: ${refusal}` });
  });

  it('a name with any refused address, even when another is allowed', async () => {
    expect(await testProbe().forRequest(soon()).hasWebsite('mixed.test')).toEqual({ status: 'unknown', reason: 'address refused: 10.0.0.1 (private)' });
  });

  it('localhost through the system resolver (/etc/hosts)', async () => {
    const result = await createWebsiteProbe().forRequest(soon()).hasWebsite('localhost');
    expect(result).toEqual({ status: 'unknown', reason: expect.stringMatching(/^address refused: (127\.0\.0\.1|::1) \(loopback\)$/) });
  });

  it('never connects to a refused address', async () => {
    const before = sites.hits.get('loop.test') ?? 0;
    await probe({ portsForTests: sites.ports }).forRequest(soon()).hasWebsite('loop.test');
    expect(sites.hits.get('loop.test') ?? 0).toBe(before);
  });
});

describe('the website probe, with the test-only loopback allowance', () => {
  it.each<[string, unknown]>([
    ['site.test', { status: 'ok', value: true }],
    ['SITE.test.', { status: 'ok', value: true }],
    ['secure.test', { status: 'ok', value: true }], // HTTPS answers 200, HTTP 404
    ['redirect-www.test', { status: 'ok', value: true }],
    ['redirect-https.test', { status: 'ok', value: true }],
    ['nohead.test', { status: 'ok', value: true }],
    ['auth.test', { status: 'ok', value: true }],
    ['www.wwwonly.test', { status: 'ok', value: true }],
    ['wwwonly.test', { status: 'ok', value: true }], // no address: its www. is probed
    ['away.test', { status: 'ok', value: false }],
    ['missing.test', { status: 'ok', value: false }],
    ['nx.test', { status: 'ok', value: false }],
    ['empty.test', { status: 'ok', value: false }],
    ['broken.test', { status: 'unknown', reason: 'HTTP 503' }],
    ['servfail.test', { status: 'unknown', reason: 'resolver: ESERVFAIL, ESERVFAIL' }],
  ])('%s → %j', async (domain, expected) => {
    expect(await testProbe().forRequest(soon()).hasWebsite(domain)).toEqual(expected);
  });

  it('resolves once and connects to the vetted address (no second resolution)', async () => {
    const before = dns.count('site.test');
    expect(await testProbe().forRequest(soon()).hasWebsite('site.test')).toEqual({ status: 'ok', value: true });
    expect(dns.count('site.test') - before).toBe(2); // one A and one AAAA question, for both schemes
  });

  it('localhost through the system resolver reaches a local server', async () => {
    const localProbe = createWebsiteProbe({ allowLoopbackForTests: true, portsForTests: sites.ports });
    expect(await localProbe.forRequest(soon()).hasWebsite('localhost')).toEqual({ status: 'ok', value: true });
  });

  it('a closed port on both schemes is "no website"', async () => {
    const ports = { https: await closedPort(), http: await closedPort() };
    expect(await testProbe({ portsForTests: ports }).forRequest(soon()).hasWebsite('site.test')).toEqual({ status: 'ok', value: false });
  });

  it('one closed scheme and one silent is unknown', async () => {
    const ports = { https: await closedPort(), http: sites.ports.http };
    expect(await testProbe({ portsForTests: ports, timeoutMs: 300 }).forRequest(soon()).hasWebsite('slow.test')).toEqual({
      status: 'unknown',
      reason: 'timeout',
    });
  });

  it('waits for a silent site until the request budget is spent, then answers "budget"', async () => {
    const budget = new AbortController();
    const asked = sites.hits.get('slow.test') ?? 0;
    let settled = false;
    const result = testProbe()
      .forRequest({ persist: false, signal: budget.signal })
      .hasWebsite('slow.test')
      .finally(() => {
        settled = true;
      });
    await expect.poll(() => sites.hits.get('slow.test') ?? 0).toBeGreaterThan(asked);
    expect(settled).toBe(false);
    budget.abort();
    expect(await result).toEqual({ status: 'unknown', reason: 'budget' });
  });

  it('answers "budget" at once when the budget is spent, and "unknown" when website checks are off', async () => {
    const before = dns.count('site.test');
    expect(await testProbe().forRequest(spent).hasWebsite('site.test')).toEqual({ status: 'unknown', reason: 'budget' });
    expect(await testProbe({ enabled: false }).forRequest(soon()).hasWebsite('site.test')).toEqual({ status: 'unknown', reason: 'website checks are off' });
    expect(dns.count('site.test')).toBe(before);
  });

  it('probes a domain once: later and concurrent requests share the answer', async () => {
    const webService = testProbe();
    const dnsBefore = dns.count('auth.test');
    const hitsBefore = sites.hits.get('auth.test') ?? 0;
    const answers = await Promise.all([1, 2, 3].map(() => webService.forRequest(soon()).hasWebsite('auth.test')));
    expect(answers).toEqual([1, 2, 3].map(() => ({ status: 'ok', value: true })));
    const hits = sites.hits.get('auth.test') ?? 0;
    expect(hits - hitsBefore).toBeGreaterThanOrEqual(1);
    expect(await webService.forRequest(spent).hasWebsite('auth.test')).toEqual({ status: 'ok', value: true });
    expect(dns.count('auth.test') - dnsBefore).toBe(2);
    expect(sites.hits.get('auth.test')).toBe(hits);
  });

  it('stops the probes in flight on close()', async () => {
    const webService = testProbe();
    const asked = sites.hits.get('slow.test') ?? 0;
    const pending = webService.forRequest(soon(5000)).hasWebsite('slow.test');
    await expect.poll(() => sites.hits.get('slow.test') ?? 0).toBeGreaterThan(asked);
    webService.close();
    expect(await pending).toEqual({ status: 'unknown', reason: 'closed' });
  });
});

describe('website answers in domain facts', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openSqliteTestStore();
  });
  afterAll(() => store.close());
  beforeEach(async () => {
    await store.knex('domain_facts').del();
  });

  const rows = () => store.knex('domain_facts').select('domain', 'kind', 'value');

  it('writes true and false for requests that persist, for one day; never unknown', async () => {
    const at = Date.now();
    const webService = testProbe({ domainFacts: store.domainFacts, now: () => at });
    const request = soon(3000, true);
    await webService.forRequest(request).hasWebsite('site.test');
    await webService.forRequest(request).hasWebsite('missing.test');
    await webService.forRequest(request).hasWebsite('broken.test');
    await webService.flush();
    expect(await rows()).toEqual(
      expect.arrayContaining([
        { domain: 'site.test', kind: WEBSITE_FACT, value: 'true' },
        { domain: 'missing.test', kind: WEBSITE_FACT, value: 'false' },
      ]),
    );
    expect(await rows()).toHaveLength(2);
    expect(await store.domainFacts.get('site.test', WEBSITE_FACT, at)).toEqual({ value: true, updatedAt: at, expiresAt: at + 86_400_000 });
  });

  it('writes nothing for a soft_check request', async () => {
    const webService = testProbe({ domainFacts: store.domainFacts });
    expect(await webService.forRequest(soon()).hasWebsite('site.test')).toEqual({ status: 'ok', value: true });
    await webService.flush();
    expect(await rows()).toEqual([]);
  });

  it('answers from the table without resolving or connecting', async () => {
    await store.domainFacts.put('stored.test', WEBSITE_FACT, true, 60_000);
    const before = dns.count('stored.test');
    expect(await testProbe({ domainFacts: store.domainFacts }).forRequest(soon()).hasWebsite('stored.test')).toEqual({ status: 'ok', value: true });
    expect(dns.count('stored.test')).toBe(before);
  });
});

describe('probeName', () => {
  it.each<[string, string | null]>([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['localhost', 'localhost'],
    ['_http._tcp.example.com', '_http._tcp.example.com'],
    ['', null],
    ['a..b', null],
    ['bücher.de', null],
    ['exa mple.com', null],
    ['example.com/path', null],
    ['user@example.com', null],
    ['0x7f.1', null],
    ['[::1]', null],
  ])('%j → %j', (domain, name) => {
    expect(probeName(domain)).toBe(name);
  });
});
