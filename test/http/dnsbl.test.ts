// DNS blocklists over HTTP, with the real app and a DNS server on 127.0.0.1 answering as real zones do:
// a listed domain is known abuse with its category in analyzed_data, and a zone that refuses or is gone
// leaves the facts unknown and the answer a 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { startDnsServer, type TestDnsServer, type ZoneRecord } from '../support/dns-server.js';
import { bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

const POLICY = `version: "1.0"
checks:
  known_abuse_domain: { mode: hard, action: block }
  dnsbl_domain:       { mode: soft, action: allow_with_review }
  dnsbl_ip:           { mode: soft, action: allow_with_review }
`;

/** TTL 0: never kept, so the same verify asks the zone again (after it is stopped, below). */
const listing = (address: string, ttl = 0) => ({ records: [{ type: 'A', address, ttl } satisfies ZoneRecord] });

let dns: TestDnsServer;
let server: TestServer;
let project: CreatedProject;
let dnsStopped = false;

beforeAll(async () => {
  dns = await startDnsServer({
    'spam-site.com.dbl.zone.test': listing('127.0.1.2'),
    'kept-site.com.dbl.zone.test': listing('127.0.1.4', 300),
    'public-resolver.com.dbl.zone.test': listing('127.255.255.254'),
    '142.69.2.81.zen.zone.test': listing('127.0.0.4'),
  });
  server = await startService({
    env: {
      NETWORK_CHECKS: 'on',
      DNS_SERVERS: dns.server,
      DNS_TIMEOUT_MS: '200',
      DNS_TRIES: '1',
      NETWORK_BUDGET_MS: '400',
      WEB_CHECKS: 'off',
      DNSBL_DOMAIN_ZONES: 'dbl.zone.test',
      DNSBL_IP_ZONES: 'zen.zone.test',
    },
  });
  project = await server.createProject({ name: 'dnsbl', policyYaml: POLICY });
});
afterAll(async () => {
  await server?.close();
  if (!dnsStopped) await dns?.close();
});

function verify(email: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return post(server.url, '/v1/public/verify', { email_address: email, show_results: true, ...extra }, bearer(project.keys.access_token));
}

describe('DNS blocklists over HTTP', () => {
  it('a domain listed by the zone is known abuse, its category in analyzed_data', async () => {
    const res = await verify('jane@spam-site.com');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'block', is_known_abuse_domain: true, errors: ['domain_is_known_abuse'], warnings: ['domain_on_dnsbl'] });
    expect(res.body.analyzed_data).toMatchObject({ dnsbl_domain_listed: 'true', dnsbl_domain_category: 'spam', dnsbl_domain_zone: 'dbl.zone.test' });
  });

  it('a domain the zone does not list: allowed, not listed', async () => {
    const res = await verify('jane@clean-site.com');
    expect(res.body).toMatchObject({ action: 'allow', is_known_abuse_domain: false, errors: [], warnings: [] });
    expect(res.body.analyzed_data).toMatchObject({ dnsbl_domain_listed: 'false' });
  });

  it("the request's IP listed by the IP zone", async () => {
    const res = await verify('jane@clean-site.com', { ipv4_address: '81.2.69.142' });
    expect(res.body).toMatchObject({ action: 'allow_with_review', is_known_abuse_domain: false, warnings: ['ip_on_dnsbl'] });
    expect(res.body.analyzed_data).toMatchObject({ dnsbl_ip_listed: 'true', dnsbl_ip_category: 'exploited', dnsbl_ip_zone: 'zen.zone.test' });
  });

  it('a refused query (127.255.255.254, a public resolver) is unknown: no listing, a 200', async () => {
    const res = await verify('jane@public-resolver.com');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'allow', is_known_abuse_domain: false, errors: [], warnings: [] });
    expect(res.body.analyzed_data).not.toHaveProperty('dnsbl_domain_listed');
  });

  it('an answer is kept for its TTL: the second verify asks the zone nothing', async () => {
    const first = await verify('jane@kept-site.com');
    const second = await verify('john@kept-site.com');
    expect(first.body.analyzed_data).toMatchObject({ dnsbl_domain_category: 'phish' });
    expect(second.body).toMatchObject({ action: 'block', is_known_abuse_domain: true });
    expect(dns.count('kept-site.com.dbl.zone.test', 'A')).toBe(1);
  });

  it("with the zone's server stopped, the same verify answers 200 with the DNSBL facts unknown", async () => {
    await dns.close();
    dnsStopped = true;
    const res = await verify('jane@spam-site.com', { ipv4_address: '81.2.69.142' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'allow', is_known_abuse_domain: false, errors: [], warnings: [] });
    expect(res.body.analyzed_data ?? {}).not.toHaveProperty('dnsbl_domain_listed');
    expect(res.body.analyzed_data ?? {}).not.toHaveProperty('dnsbl_ip_listed');
  });
});

describe('a verify asking many zones at once', () => {
  const zones = Array.from({ length: 12 }, (_, i) => `z${i}.zone.test`);
  let many: TestDnsServer;
  let service: TestServer;
  let shop: CreatedProject;
  beforeAll(async () => {
    many = await startDnsServer(Object.fromEntries(zones.map((zone) => [`spam-site.com.${zone}`, listing('127.0.1.2')])));
    service = await startService({
      env: { NETWORK_CHECKS: 'on', DNS_SERVERS: many.server, DNS_TIMEOUT_MS: '200', DNS_TRIES: '1', WEB_CHECKS: 'off', DNSBL_DOMAIN_ZONES: zones.join(',') },
    });
    shop = await service.createProject({ name: 'zones', policyYaml: POLICY });
  });
  afterAll(async () => {
    await service?.close();
    await many?.close();
  });

  it("asks each and warns of no listener leak (each lookup waits on the request's budget, then lets go)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const res = await post(service.url, '/v1/public/verify', { email_address: 'jane@spam-site.com', show_results: true }, bearer(shop.keys.access_token));
      expect(res.body).toMatchObject({ action: 'block', is_known_abuse_domain: true });
      for (const zone of zones) expect(many.count(`spam-site.com.${zone}`, 'A')).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});
