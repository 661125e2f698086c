// The resolvers' self-check (issue 51, point 3) with the real app and a DNS server on 127.0.0.1 that lies
// as captive resolvers do: NXDOMAIN for every name. The canaries fail, so the service warns once, saying
// what to do, reports `dns` degraded in /readyz (still ready), and answers with DNS facts unknown: no
// address is blocked for a "missing" MX. Once the canary resolves again, DNS is asked again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../support/dns-server.js';
import { type CapturedLog, captureLog } from '../support/log-capture.js';
import { bearer, post, send, startService, type TestServer } from '../support/server.js';

const POLICY = `version: "1.0"
checks:
  mx_record: { mode: hard, action: block }
`;

describe('the resolvers self-check', () => {
  // Mutable: the server reads it for each question, so a test can make the canary resolve.
  const zone: Record<string, Zone[string]> = {};
  let dns: TestDnsServer;
  let server: TestServer;
  let project: CreatedProject;
  let captured: CapturedLog;

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    captured = captureLog('info');
    server = await startService({
      env: {
        NETWORK_CHECKS: 'on',
        DNS_SERVERS: dns.server,
        DNS_TIMEOUT_MS: '200',
        DNS_TRIES: '1',
        WEB_CHECKS: 'off',
        DNS_CANARIES: 'canary.test,other-canary.test',
        DNS_CHECK_INTERVAL_SECONDS: '1',
      },
      compose: { log: captured.log },
    });
    project = await server.createProject({ name: 'shop', policyYaml: POLICY });
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
  });

  const verify = (email: string) => post(server.url, '/v1/public/verify', { email_address: email, show_results: true }, bearer(project.keys.access_token));

  it('warns once, naming the canaries and what to do, and reports dns degraded in /readyz', async () => {
    await expect.poll(() => captured.lines.filter((l) => String(l.msg).startsWith('DNS self-check failed')).length).toBe(1);
    const [warning] = captured.lines.filter((l) => String(l.msg).startsWith('DNS self-check failed'));
    expect(warning).toMatchObject({ level: 40 });
    expect(warning?.msg).toContain('canary.test: nxdomain, other-canary.test: nxdomain');
    expect(warning?.msg).toContain(`DNS_SERVERS (${dns.server})`);
    expect(warning?.msg).toContain('Set DNS_SERVERS to a resolver that works, or NETWORK_CHECKS=off to run offline');

    const ready = await send('GET', server.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', degraded: ['dns'] });
    expect(ready.body.checks.dns).toEqual({ ok: false, reason: expect.stringContaining('domains that must exist do not resolve (canary.test: nxdomain') });
  });

  it('answers with DNS facts unknown, asking nothing: no address is blocked for a missing MX', async () => {
    const asked = dns.count('gmail.com');
    const res = await verify('jane.doe@gmail.com');
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
    expect(res.body.errors).toEqual([]);
    expect(res.body.analyzed_data).toMatchObject({ mx_record_status: 'not_checked' });
    expect(dns.count('gmail.com')).toBe(asked);
  });

  it('asks DNS again once a canary resolves, and says so', async () => {
    zone['canary.test'] = { records: [{ type: 'MX', exchange: 'mx.canary.test', priority: 10 }] };
    await expect.poll(() => captured.lines.some((l) => l.msg === 'DNS self-check passes again: DNS facts are looked up again'), { timeout: 5_000 }).toBe(true);
    const res = await verify('someone@nowhere.test');
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('block');
    expect(dns.count('nowhere.test')).toBeGreaterThan(0);
    const ready = await send('GET', server.url, '/readyz');
    expect(ready.body.status).toBe('ready');
    expect(ready.body.degraded).toBeUndefined();
    expect(captured.lines.filter((l) => String(l.msg).startsWith('DNS self-check failed'))).toHaveLength(1);
  });
});
