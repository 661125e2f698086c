// The website plugin through the real probe (src/network/website.ts): names resolved by a DNS server on
// 127.0.0.1 (dns2), sites served by a node:http server on 127.0.0.1. The probe reaches loopback only
// with its test-only allowance; the strict probe below shows the same names refused.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { OFFLINE } from '../../src/network/offline.js';
import { createWebsiteProbe, type WebsiteService } from '../../src/network/website.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../../test/support/dns-server.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';

const LOOPBACK = { records: [{ type: 'A' as const, address: '127.0.0.1' }] };
const ZONE: Zone = {
  'site.test': LOOPBACK,
  'xn--bcher-kva.test': LOOPBACK,
  'parked.test': LOOPBACK,
  'nosite.test': LOOPBACK,
  'private.test': { records: [{ type: 'A', address: '10.0.0.1' }] },
  'nx.test': { rcode: 'NXDOMAIN' },
  'servfail.test': { rcode: 'SERVFAIL' },
};

let dns: TestDnsServer;
let site: Server;
let closedPort: number;
let lenient: WebsiteService;
let strict: WebsiteService;
const probed: string[] = [];

beforeAll(async () => {
  dns = await startDnsServer(ZONE);
  site = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    probed.push(host);
    if (host === 'site.test' || host === 'xn--bcher-kva.test') res.writeHead(200).end();
    else if (host === 'parked.test') res.writeHead(302, { location: 'https://parking.example/' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const ports = { https: closedPort, http: (site.address() as AddressInfo).port };
  lenient = createWebsiteProbe({ servers: [dns.server], allowLoopbackForTests: true, portsForTests: ports });
  strict = createWebsiteProbe({ servers: [dns.server], portsForTests: ports });
});
afterAll(async () => {
  lenient.close();
  strict.close();
  site.closeAllConnections();
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await dns.close();
});

/** Each probe gets a fresh request budget: the tester's network object is made before the servers start. */
const networkOf = (service: () => WebsiteService): NetworkAccess => ({
  ...OFFLINE,
  enabled: true,
  website: {
    hasWebsite: (domain) =>
      service()
        .forRequest({ persist: false, signal: AbortSignal.timeout(1500) })
        .hasWebsite(domain),
  },
});
const network = networkOf(() => lenient);

testPlugin(
  plugin,
  [
    { email: 'jane@site.test', facts: { has_website: true } },
    { email: 'jane@SITE.Test', facts: { has_website: true } },
    { name: 'IDN probed in punycode', email: 'jane@bücher.test', facts: { has_website: true } },
    { name: 'punycode as written', email: 'jane@xn--bcher-kva.test', facts: { has_website: true } },
    { name: 'a redirect to another host is no website of its own', email: 'jane@parked.test', facts: { has_website: false } },
    { name: '404 at / is no website', email: 'jane@nosite.test', facts: { has_website: false } },
    { name: 'no address at all', email: 'jane@nx.test', facts: { has_website: false } },
    { name: 'resolver failure is unknown', email: 'jane@servfail.test', facts: { has_website: null } },
    { name: 'a private address is refused: unknown', email: 'jane@private.test', facts: { has_website: null } },
    { name: 'address literal: not probed', email: 'jane@[127.0.0.1]', facts: { has_website: null } },
    { name: 'invalid address', email: 'not an address', facts: { has_website: null } },
  ],
  { network },
);

describe('website plugin', () => {
  it('is unknown for a loopback site without the test allowance (and never connects)', async () => {
    probed.length = 0;
    expect(await computeFacts(plugin, { email: 'jane@nosite.test' }, { network: networkOf(() => strict) })).toEqual({ has_website: null });
    expect(probed).toEqual([]);
  });

  it('is unknown, without any I/O, when network checks are off or WEB_CHECKS=off', async () => {
    const before = dns.questions.length;
    expect(await computeFacts(plugin, { email: 'jane@site.test' })).toEqual({ has_website: null });
    const off = createWebsiteProbe({ enabled: false, servers: [dns.server] });
    expect(await computeFacts(plugin, { email: 'jane@site.test' }, { network: networkOf(() => off) })).toEqual({ has_website: null });
    expect(dns.questions.length).toBe(before);
  });

  it('declares no step and no check: it is a signal for domain health', () => {
    expect(plugin.steps).toEqual([]);
    expect(plugin.checks).toEqual({});
  });
});
