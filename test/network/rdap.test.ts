// RDAP lookups against a real RDAP server on 127.0.0.1 (node:http), pointed at with baseUrl
// (RDAP_BASE_URL) or with a bootstrap file naming it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRegistrationLookup, RDAP_FACT, type RegistrationOptions, registrationDate } from '../../src/network/rdap.js';
import { DEFAULT_BOOTSTRAP_FILE, loadBootstrap } from '../../src/network/rdap-bootstrap.js';
import type { Store } from '../../src/store/database.js';
import { openSqliteTestStore } from '../support/databases.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';

const DAY = 86_400_000;
const OLD = Date.parse('2001-02-03T04:05:06Z');
const YOUNG = Date.now() - 5 * DAY;

const rdapJson = (body: unknown) => ({ status: 200, type: 'application/rdap+json', body: JSON.stringify(body) });
const domainObject = (name: string, registered: number) => ({
  objectClassName: 'domain',
  ldhName: name,
  events: [
    { eventAction: 'last changed', eventDate: '2024-01-01T00:00:00Z' },
    { eventAction: 'registration', eventDate: new Date(registered).toISOString() },
    { eventAction: 'expiration', eventDate: '2030-02-03T04:05:06Z' },
  ],
});

/** What the server answers per domain name; `hang` never answers. */
const ANSWERS: Record<string, { status: number; type?: string; body?: string; headers?: Record<string, string> } | 'hang'> = {
  'old.test': rdapJson(domainObject('old.test', OLD)),
  'old2.test': rdapJson(domainObject('old2.test', OLD)),
  'young.test': rdapJson(domainObject('young.test', YOUNG)),
  'noevent.test': rdapJson({ objectClassName: 'domain', events: [{ eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' }] }),
  'placeholder.test': rdapJson(domainObject('placeholder.test', Date.parse('0001-01-01T00:00:00Z'))),
  'future.test': rdapJson(domainObject('future.test', Date.now() + 30 * DAY)),
  'missing.test': { status: 404, type: 'application/rdap+json', body: '{"errorCode":404}' },
  'badjson.test': { status: 200, type: 'application/rdap+json', body: '{"events": [' },
  'array.test': rdapJson([1, 2]),
  'huge.test': { status: 200, type: 'application/rdap+json', body: JSON.stringify({ events: [], pad: 'x'.repeat(300 * 1024) }) },
  'broken.test': { status: 500, body: 'oops' },
  'limited.test': { status: 429, headers: { 'retry-after': '60' }, body: '' },
  'moved.test': { status: 302, headers: { location: '/rdap/domain/old.test' }, body: '' },
  'elsewhere.test': { status: 302, headers: { location: 'http://rdap.elsewhere.example/domain/elsewhere.test' }, body: '' },
  'slow.test': 'hang',
  // Redirects elsewhere: to addresses the guard refuses, by literal or by name, and a chain.
  'to-private.test': { status: 302, headers: { location: 'https://10.0.0.1/rdap/domain/to-private.test' }, body: '' },
  'to-metadata.test': { status: 307, headers: { location: 'https://169.254.169.254/latest/meta-data/' }, body: '' },
  'to-internal.test': { status: 301, headers: { location: 'https://rdap.internal.test/domain/to-internal.test' }, body: '' },
  'hop1.test': { status: 302, headers: { location: '/rdap/domain/hop2.test' }, body: '' },
  'hop2.test': { status: 302, headers: { location: '/rdap/domain/hop3.test' }, body: '' },
  'hop3.test': { status: 302, headers: { location: '/rdap/domain/hop4.test' }, body: '' },
  'hop4.test': { status: 302, headers: { location: '/rdap/domain/hop5.test' }, body: '' },
  'hop5.test': rdapJson(domainObject('hop5.test', OLD)),
};

interface RdapServer {
  url: string;
  /** Requests received per domain name. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function startRdapServer(): Promise<RdapServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Serves <prefix>/domain/<name> for any prefix, so one server stands for several bootstrap bases.
    const match = /\/domain\/([^/]+)$/.exec(req.url ?? '');
    const name = match?.[1] ?? '';
    const prefix = (req.url ?? '').slice(0, (req.url ?? '').length - (match?.[0].length ?? 0));
    hits.set(name, (hits.get(name) ?? 0) + 1);
    hits.set(`${prefix}|${name}`, (hits.get(`${prefix}|${name}`) ?? 0) + 1);
    const answer = ANSWERS[name];
    if (answer === 'hang') return;
    if (answer === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(answer.status, { ...(answer.type ? { 'content-type': answer.type } : {}), ...answer.headers });
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rdap/`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let rdap: RdapServer;
beforeAll(async () => {
  rdap = await startRdapServer();
});
afterAll(() => rdap.close());

/** A request with `ms` to spend. */
const soon = (ms = 2000, persist = false) => ({ persist, signal: AbortSignal.timeout(ms) });
/** A request whose budget is already spent. */
const spent = { persist: false, signal: AbortSignal.abort() };
const service = (options: RegistrationOptions = {}) => createRegistrationLookup({ baseUrl: rdap.url, ...options });

describe('RDAP registration dates (RDAP_BASE_URL)', () => {
  it.each<[string, unknown]>([
    ['old.test', { status: 'ok', value: OLD }],
    ['young.test', { status: 'ok', value: YOUNG }],
    ['OLD.test.', { status: 'ok', value: OLD }],
    ['moved.test', { status: 'ok', value: OLD }],
    ['elsewhere.test', { status: 'unknown', reason: 'RDAP redirect to a non-HTTPS URL' }],
    ['noevent.test', { status: 'unknown', reason: 'no registration event' }],
    ['placeholder.test', { status: 'unknown', reason: 'no registration event' }],
    ['future.test', { status: 'unknown', reason: 'registration date in the future' }],
    ['missing.test', { status: 'unknown', reason: 'not found' }],
    ['unlisted.test', { status: 'unknown', reason: 'not found' }],
    ['badjson.test', { status: 'unknown', reason: 'RDAP reply is not JSON' }],
    ['array.test', { status: 'unknown', reason: 'RDAP reply is not an object' }],
    ['huge.test', { status: 'unknown', reason: 'RDAP reply too large' }],
    ['broken.test', { status: 'unknown', reason: 'RDAP server answered HTTP 500' }],
    ['limited.test', { status: 'unknown', reason: 'RDAP server answered HTTP 429' }],
  ])('%s → %j', async (domain, expected) => {
    const lookup = service().forRequest(soon());
    expect(await lookup.registered(domain)).toEqual(expected);
  });

  it.each(['', 'com', '[192.0.2.1]', '192.0.2.1.', 'bücher.de', 'a..b.test', 'a b.test', 'a/../b.test', '_dmarc.old.test'])(
    '%j is not looked up',
    async (domain) => {
      const requests = () => [...rdap.hits.values()].reduce((sum, n) => sum + n, 0);
      const before = requests();
      expect(await service().forRequest(soon()).registered(domain)).toEqual({ status: 'unknown', reason: 'not a domain name' });
      expect(requests()).toBe(before);
    },
  );

  it('waits for an unanswered question until the request budget is spent, then answers "budget"', async () => {
    const budget = new AbortController();
    const asked = rdap.hits.get('slow.test') ?? 0;
    let settled = false;
    const result = service()
      .forRequest({ persist: false, signal: budget.signal })
      .registered('slow.test')
      .finally(() => {
        settled = true;
      });
    await expect.poll(() => rdap.hits.get('slow.test') ?? 0).toBe(asked + 1);
    expect(settled).toBe(false);
    budget.abort();
    expect(await result).toEqual({ status: 'unknown', reason: 'budget' });
  });

  it('times a question out after timeoutMs, and remembers the failure briefly', async () => {
    const rdapService = service({ timeoutMs: 200 });
    // The budget (5 s) outlasts timeoutMs: "RDAP timeout", not "budget", says which ended the wait.
    expect(await rdapService.forRequest(soon(5000)).registered('slow.test')).toEqual({ status: 'unknown', reason: 'RDAP timeout' });
    const hits = rdap.hits.get('slow.test');
    expect(await rdapService.forRequest(soon(5000)).registered('slow.test')).toEqual({ status: 'unknown', reason: 'RDAP timeout' });
    expect(rdap.hits.get('slow.test')).toBe(hits);
  });

  it('remembers a failure for errorTtlMs on its clock, then asks again', async () => {
    let at = Date.now();
    const rdapService = service({ now: () => at, errorTtlMs: 60_000 });
    const before = rdap.hits.get('broken.test') ?? 0;
    await rdapService.forRequest(soon()).registered('broken.test');
    at += 59_999;
    await rdapService.forRequest(soon()).registered('broken.test');
    expect(rdap.hits.get('broken.test')).toBe(before + 1);
    at += 2;
    expect(await rdapService.forRequest(soon()).registered('broken.test')).toEqual({ status: 'unknown', reason: 'RDAP server answered HTTP 500' });
    expect(rdap.hits.get('broken.test')).toBe(before + 2);
  });

  it('answers "budget" at once when the budget is spent, without a request', async () => {
    const before = rdap.hits.get('old2.test') ?? 0;
    expect(await service().forRequest(spent).registered('old2.test')).toEqual({ status: 'unknown', reason: 'budget' });
    expect(rdap.hits.get('old2.test') ?? 0).toBe(before);
  });

  it('asks once per domain: concurrent and later lookups share the answer', async () => {
    const rdapService = service();
    const before = rdap.hits.get('young.test') ?? 0;
    const answers = await Promise.all([1, 2, 3].map(() => rdapService.forRequest(soon()).registered('young.test')));
    expect(answers).toEqual([1, 2, 3].map(() => ({ status: 'ok', value: YOUNG })));
    expect(await rdapService.forRequest(spent).registered('young.test')).toEqual({ status: 'ok', value: YOUNG });
    expect(rdap.hits.get('young.test')).toBe(before + 1);
  });

  it('leaves a server alone after it answers 429', async () => {
    const rdapService = service();
    await rdapService.forRequest(soon()).registered('limited.test');
    const before = rdap.hits.get('old2.test') ?? 0;
    expect(await rdapService.forRequest(soon()).registered('old2.test')).toEqual({ status: 'unknown', reason: 'RDAP server asked us to slow down' });
    expect(rdap.hits.get('old2.test') ?? 0).toBe(before);
  });

  it('stops the questions in flight on close()', async () => {
    const rdapService = service();
    const asked = rdap.hits.get('slow.test') ?? 0;
    const pending = rdapService.forRequest(soon(5000)).registered('slow.test');
    await expect.poll(() => rdap.hits.get('slow.test') ?? 0).toBe(asked + 1);
    rdapService.close();
    expect(await pending).toEqual({ status: 'unknown', reason: 'RDAP lookups closed' });
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createRegistrationLookup({ baseUrl: 'ftp://rdap.example/' })).toThrow(/not an http\(s\) URL/);
  });
});

describe('RDAP bootstrap (RDAP_BOOTSTRAP_FILE)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rdap-bootstrap-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('ships IANA services for the main TLDs, HTTPS, with a trailing slash', () => {
    const bases = loadBootstrap(DEFAULT_BOOTSTRAP_FILE);
    expect(bases.size).toBeGreaterThan(1000);
    expect(bases.get('com')).toBe('https://rdap.verisign.com/com/v1/');
    expect(bases.get('net')).toBe('https://rdap.verisign.com/net/v1/');
    expect(bases.get('org')).toBe('https://rdap.publicinterestregistry.org/rdap/');
    for (const base of bases.values()) expect(base).toMatch(/^https?:\/\/[^/]+\/(.*\/)?$/);
  });

  it('sends each domain to the service of its longest listed suffix', async () => {
    const file = join(dir, 'dns.json');
    const origin = rdap.url.replace(/\/rdap\/$/, '');
    await writeFile(
      file,
      JSON.stringify({
        version: '1.0',
        publication: '2026-11-22T00:00:00Z',
        services: [
          [['test'], [`${origin}/tld`]],
          [['sub.test'], ['ftp://ignored.example/', `${origin}/sub/`]],
        ],
      }),
    );
    const rdapService = createRegistrationLookup({ bootstrapFile: file, allowLoopbackForTests: true });
    expect(await rdapService.forRequest(soon()).registered('old.test')).toEqual({ status: 'ok', value: OLD });
    expect(rdap.hits.get('/tld|old.test')).toBe(1);
    expect(await rdapService.forRequest(soon()).registered('old.sub.test')).toEqual({ status: 'unknown', reason: 'not found' });
    expect(rdap.hits.get('/sub|old.sub.test')).toBe(1);
    expect(await rdapService.forRequest(soon()).registered('old.example')).toEqual({ status: 'unknown', reason: 'no RDAP service for this TLD' });
    expect(rdap.hits.get('old.example')).toBeUndefined();
  });

  it('refuses a listed service on a loopback address, asking nothing (only RDAP_BASE_URL is trusted)', async () => {
    const file = join(dir, 'loopback.json');
    const origin = rdap.url.replace(/\/rdap\/$/, '');
    await writeFile(file, JSON.stringify({ version: '1.0', services: [[['test'], [`${origin}/guarded/`]]] }));
    const rdapService = createRegistrationLookup({ bootstrapFile: file });
    expect(await rdapService.forRequest(soon()).registered('old2.test')).toEqual({ status: 'unknown', reason: 'RDAP address refused: 127.0.0.1 (loopback)' });
    expect(rdap.hits.get('/guarded|old2.test')).toBeUndefined();
  });

  it('refuses a file that is not an RFC 9224 bootstrap, naming it', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"services": 3}');
    expect(() => createRegistrationLookup({ bootstrapFile: file })).toThrow(/bad\.json.*services/);
    expect(() => createRegistrationLookup({ bootstrapFile: join(dir, 'absent.json') })).toThrow(/absent\.json/);
  });
});

describe('RDAP redirects: the address guard on every hop, at most 3 hops', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({ 'rdap.internal.test': { records: [{ type: 'A', address: '10.1.2.3' }] } });
  });
  afterAll(() => dns.close());

  it.each([
    ['to-private.test', 'RDAP address refused: 10.0.0.1 (private)'],
    ['to-metadata.test', 'RDAP address refused: 169.254.169.254 (metadata)'],
    ['to-internal.test', 'RDAP address refused: 10.1.2.3 (private)'],
  ])('%s: a redirect to a refused address is not followed → %s', async (domain, reason) => {
    const lookup = service({ servers: [dns.server] }).forRequest(soon());
    expect(await lookup.registered(domain)).toEqual({ status: 'unknown', reason });
  });

  it('refuses a redirect to [::1] while only the configured base on 127.0.0.1 is trusted', async () => {
    const port = new URL(rdap.url).port;
    const server = createServer((_req, res) => res.writeHead(302, { location: `https://[::1]:${port}/rdap/domain/old.test` }).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const before = rdap.hits.get('old.test') ?? 0;
      const lookup = createRegistrationLookup({ baseUrl: base }).forRequest(soon());
      expect(await lookup.registered('old.test')).toEqual({ status: 'unknown', reason: 'RDAP address refused: ::1 (loopback)' });
      expect(rdap.hits.get('old.test') ?? 0).toBe(before);
    } finally {
      server.close();
    }
  });

  it('follows 3 redirects, and stops after the third with "unknown"', async () => {
    expect(await service().forRequest(soon()).registered('hop2.test')).toEqual({ status: 'ok', value: OLD });
    const before = rdap.hits.get('hop5.test') ?? 0;
    expect(await service().forRequest(soon()).registered('hop1.test')).toEqual({ status: 'unknown', reason: 'RDAP: more than 3 redirects' });
    expect(rdap.hits.get('hop5.test') ?? 0).toBe(before);
  });
});

describe('RDAP answers in domain facts', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openSqliteTestStore();
  });
  afterAll(() => store.close());
  beforeEach(async () => {
    await store.knex('domain_facts').del();
  });

  const rows = () => store.knex('domain_facts').select('domain', 'kind', 'value');

  it('writes dates and "not found" for requests that persist, with their TTLs', async () => {
    const at = Date.now();
    const rdapService = service({ domainFacts: store.domainFacts, now: () => at });
    const request = soon(2000, true);
    await rdapService.forRequest(request).registered('old.test');
    await rdapService.forRequest(request).registered('missing.test');
    await rdapService.forRequest(request).registered('broken.test');
    await rdapService.flush();
    expect(await rows()).toEqual(
      expect.arrayContaining([
        { domain: 'old.test', kind: RDAP_FACT, value: String(OLD) },
        { domain: 'missing.test', kind: RDAP_FACT, value: '"not_found"' },
      ]),
    );
    expect(await rows()).toHaveLength(2);
    expect(await store.domainFacts.get('old.test', RDAP_FACT, at)).toEqual({ value: OLD, updatedAt: at, expiresAt: at + 7 * DAY });
    expect(await store.domainFacts.get('missing.test', RDAP_FACT, at)).toEqual({ value: 'not_found', updatedAt: at, expiresAt: at + DAY });
  });

  it('writes nothing for a soft_check request, and persists the remembered answer later', async () => {
    const rdapService = service({ domainFacts: store.domainFacts });
    expect(await rdapService.forRequest(soon()).registered('young.test')).toEqual({ status: 'ok', value: YOUNG });
    await rdapService.flush();
    expect(await rows()).toEqual([]);
    const before = rdap.hits.get('young.test');
    await rdapService.forRequest(soon(2000, true)).registered('young.test');
    await rdapService.flush();
    expect(await rows()).toEqual([{ domain: 'young.test', kind: RDAP_FACT, value: String(YOUNG) }]);
    expect(rdap.hits.get('young.test')).toBe(before);
  });

  it('answers from the table without asking (another instance, or after a restart)', async () => {
    await store.domainFacts.put('stored.test', RDAP_FACT, OLD, DAY);
    await store.domainFacts.put('gone.test', RDAP_FACT, 'not_found', DAY);
    await store.domainFacts.put('junk.test', RDAP_FACT, { nonsense: true }, DAY);
    const lookup = service({ domainFacts: store.domainFacts }).forRequest(soon());
    expect(await lookup.registered('stored.test')).toEqual({ status: 'ok', value: OLD });
    expect(await lookup.registered('gone.test')).toEqual({ status: 'unknown', reason: 'not found' });
    expect(rdap.hits.get('stored.test')).toBeUndefined();
    expect(rdap.hits.get('gone.test')).toBeUndefined();
    // A row of another shape is ignored and asked again (this server does not know the name).
    expect(await lookup.registered('junk.test')).toEqual({ status: 'unknown', reason: 'not found' });
    expect(rdap.hits.get('junk.test')).toBe(1);
  });

  it('goes on without the table when it fails, and says so', async () => {
    const errors: unknown[] = [];
    const failing = { get: () => Promise.reject(new Error('db down')), put: () => Promise.reject(new Error('db down')) };
    const rdapService = service({ domainFacts: failing, onError: (e) => errors.push(e) });
    expect(await rdapService.forRequest(soon(2000, true)).registered('old.test')).toEqual({ status: 'ok', value: OLD });
    await rdapService.flush();
    expect(errors).toHaveLength(2);
  });
});

describe('registrationDate', () => {
  const now = Date.parse('2026-11-22T00:00:00Z');
  it.each<[unknown, unknown]>([
    [{ events: [{ eventAction: 'Registration', eventDate: '2020-05-06T07:08:09Z' }] }, { status: 'ok', value: Date.parse('2020-05-06T07:08:09Z') }],
    [{ events: [{ eventAction: 'registration', eventDate: '2020-05-06' }] }, { status: 'ok', value: Date.parse('2020-05-06') }],
    [{ events: [{ eventAction: 'registration', eventDate: 'yesterday' }] }, { status: 'unknown', reason: 'no registration event' }],
    [{ events: [{ eventAction: 'registration' }] }, { status: 'unknown', reason: 'no registration event' }],
    [{ events: [null, 3, { eventAction: 'transfer', eventDate: '2020-01-01T00:00:00Z' }] }, { status: 'unknown', reason: 'no registration event' }],
    [{ events: 'none' }, { status: 'unknown', reason: 'no registration event' }],
    [{}, { status: 'unknown', reason: 'no registration event' }],
    [null, { status: 'unknown', reason: 'RDAP reply is not an object' }],
    ['text', { status: 'unknown', reason: 'RDAP reply is not an object' }],
  ])('%j → %j', (body, expected) => {
    expect(registrationDate(body, now).answer).toEqual(expected);
  });
});
