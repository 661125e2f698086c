// The dns plugin against a real DNS server on 127.0.0.1 (test/support/dns-server.ts): facts per domain,
// the checks that fire, the codes per mode, and "not_checked" (never "invalid") when the world does not answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsAnswer, NetworkAccess } from '../../src/engine/plugin.js';
import { createDnsLookup, type DnsService } from '../../src/network/dns.js';
import { OFFLINE } from '../../src/network/offline.js';
import { startDnsServer, type TestDnsServer } from '../../test/support/dns-server.js';
import { computeFacts, decisionFor, runCase, testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';
import { isNullMx, mailRoutingFacts } from './mail-routing.js';

const BUDGET_MS = 1500;
let server: TestDnsServer;
let dns: DnsService;

beforeAll(async () => {
  server = await startDnsServer();
  dns = createDnsLookup({ servers: [server.server], timeoutMs: 200, tries: 1 });
});
afterAll(async () => {
  dns.close();
  await server.close();
});

/** Each lookup gets a fresh request budget: the tester's network object is made before the server starts. */
function networkWith(budgetMs = BUDGET_MS): NetworkAccess {
  const request = () => dns.forRequest({ persist: false, signal: AbortSignal.timeout(budgetMs) });
  return {
    ...OFFLINE,
    enabled: true,
    dns: { mx: (d) => request().mx(d), a: (d) => request().a(d), aaaa: (d) => request().aaaa(d) },
  };
}
const network = networkWith();

const notChecked = { mx_record_status: 'not_checked', a_record_fallback: null, mx_record_count: null, has_null_mx: null, mx_hosts_are_ips: null };
const unknown = { ...notChecked, mx_record_status: null, a_record_count: null, aaaa_record_count: null };

testPlugin(
  plugin,
  [
    {
      email: 'jane@mx.test',
      facts: {
        mx_record_status: 'valid',
        a_record_fallback: 'not_needed',
        mx_record_count: 1,
        a_record_count: 1,
        aaaa_record_count: 0,
        has_null_mx: false,
        mx_hosts_are_ips: false,
      },
      fires: [],
    },
    { email: 'jane@MX.Test', facts: { mx_record_status: 'valid', mx_record_count: 1 }, fires: [] },
    {
      email: 'jane@multi.test',
      facts: { mx_record_status: 'valid', a_record_fallback: 'not_needed', mx_record_count: 2, a_record_count: 2, aaaa_record_count: 1 },
      fires: [],
    },
    {
      name: 'no MX but A and AAAA: the implicit MX',
      email: 'jane@aonly.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'valid', mx_record_count: 0, a_record_count: 1, aaaa_record_count: 1, has_null_mx: false },
      fires: ['mx_record'],
    },
    {
      name: 'no MX, only AAAA',
      email: 'jane@v6only.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'valid', mx_record_count: 0, a_record_count: 0, aaaa_record_count: 1 },
      fires: ['mx_record'],
    },
    {
      name: 'null MX: no mail, whatever the A record says',
      email: 'jane@nullmx.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'invalid', mx_record_count: 0, a_record_count: 1, has_null_mx: true, mx_hosts_are_ips: false },
      fires: ['fallback_a_record', 'mx_record'],
    },
    {
      name: 'MX host written as an IP address',
      email: 'jane@ipmx.test',
      facts: { mx_record_status: 'valid', a_record_fallback: 'not_needed', mx_record_count: 1, mx_hosts_are_ips: true, has_null_mx: false },
      fires: [],
    },
    {
      name: 'NXDOMAIN',
      email: 'jane@nx.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'invalid', mx_record_count: 0, a_record_count: 0, aaaa_record_count: 0, has_null_mx: false },
      fires: ['fallback_a_record', 'mx_record'],
    },
    {
      name: 'a name not in the zone is NXDOMAIN',
      email: 'jane@nowhere.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'invalid' },
      fires: ['fallback_a_record', 'mx_record'],
    },
    {
      name: 'the name exists with no records (NODATA everywhere)',
      email: 'jane@empty.test',
      facts: { mx_record_status: 'invalid', a_record_fallback: 'invalid', mx_record_count: 0, a_record_count: 0, aaaa_record_count: 0 },
      fires: ['fallback_a_record', 'mx_record'],
    },
    {
      name: 'SERVFAIL is not_checked, never invalid',
      email: 'jane@servfail.test',
      facts: { ...notChecked, a_record_count: null, aaaa_record_count: null },
      fires: [],
    },
    { name: 'REFUSED is not_checked', email: 'jane@refused.test', facts: { ...notChecked, a_record_count: null }, fires: [] },
    { name: 'a silent server is not_checked', email: 'jane@silent.test', facts: { ...notChecked, a_record_count: null }, fires: [] },
    { name: 'an IDN domain is looked up as punycode', email: 'jane@bücher.test', facts: { mx_record_status: 'valid', mx_record_count: 1 }, fires: [] },
    { name: 'a punycode domain as written', email: 'jane@xn--bcher-kva.test', facts: { mx_record_status: 'valid' }, fires: [] },
    { name: 'an address literal is not looked up', email: 'jane@[192.0.2.1]', facts: unknown, fires: [] },
    { name: 'an IPv6 literal is not looked up', email: 'jane@[IPv6:2001:db8::1]', facts: unknown, fires: [] },
    { name: 'a name DNS cannot hold', email: 'jane@exa_mple!.test', facts: unknown, fires: [] },
    { name: 'an empty label', email: 'jane@mx..test', facts: unknown, fires: [] },
    { name: 'no domain', email: 'jane', facts: unknown, fires: [] },
    { name: 'empty domain', email: 'jane@', facts: unknown, fires: [] },
  ],
  { network },
);

describe('dns plugin without a network', () => {
  it('is not_checked without a network (OFFLINE), and nothing fires', async () => {
    const offline = await runCase(plugin, { email: 'jane@nx.test' });
    expect(offline.facts).toMatchObject({ ...notChecked, a_record_count: null, aaaa_record_count: null });
    expect(offline.fires).toEqual([]);
  });

  it('asks nothing when the network says it is turned off (NETWORK_CHECKS=off)', async () => {
    const before = server.questions.length;
    const off = await computeFacts(plugin, { email: 'jane@nx.test' }, { network: { ...network, enabled: false } });
    expect(off).toMatchObject({ ...notChecked, a_record_count: null, aaaa_record_count: null });
    expect(server.questions.length).toBe(before);
  });

  it('is not_checked when the lookups throw (a broken implementation)', async () => {
    const broken: NetworkAccess = {
      ...network,
      dns: { mx: () => Promise.reject(new Error('x')), a: () => Promise.reject(new Error('x')), aaaa: () => Promise.reject(new Error('x')) },
    };
    expect(await computeFacts(plugin, { email: 'jane@mx.test' }, { network: broken })).toMatchObject(notChecked);
  });
});

describe('dns plugin lookups', () => {
  it('asks MX, A and AAAA of the punycode name', async () => {
    await computeFacts(plugin, { email: 'jane@bücher.test' }, { network });
    expect(server.count('xn--bcher-kva.test', 'MX')).toBeGreaterThan(0);
    expect(server.count('xn--bcher-kva.test', 'A')).toBeGreaterThan(0);
    expect(server.questions.some((q) => q.name.includes('ü'))).toBe(false);
  });

  it('answers not_checked within the budget when the server is silent', async () => {
    const slow = createDnsLookup({ servers: [server.server], timeoutMs: 5_000, tries: 2 });
    const budget = 300;
    const started = Date.now();
    const facts = await computeFacts(
      plugin,
      { email: 'jane@silent.test' },
      { network: { ...network, dns: slow.forRequest({ persist: false, signal: AbortSignal.timeout(budget) }) } },
    );
    slow.close();
    expect(facts).toMatchObject(notChecked);
    expect(Date.now() - started).toBeLessThan(3 * budget);
  });

  it('null MX: isNullMx needs exactly one "." exchange with preference 0', () => {
    expect(isNullMx([{ exchange: '', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: '.', priority: 0 }])).toBe(true);
    expect(isNullMx([{ exchange: '.', priority: 10 }])).toBe(false);
    expect(
      isNullMx([
        { exchange: '.', priority: 0 },
        { exchange: 'mx.example', priority: 10 },
      ]),
    ).toBe(false);
    expect(isNullMx([])).toBe(false);
  });

  it('a "." exchange beside real hosts is ignored; only root exchanges leave no fallback', () => {
    const ok: DnsAnswer<string> = { status: 'ok', records: ['192.0.2.1'] };
    const mixed = mailRoutingFacts(
      {
        status: 'ok',
        records: [
          { exchange: '.', priority: 0 },
          { exchange: 'mx.example', priority: 10 },
        ],
      },
      ok,
      ok,
    );
    expect(mixed).toMatchObject({ mx_record_status: 'valid', mx_record_count: 1, has_null_mx: false });
    const rootOnly = mailRoutingFacts({ status: 'ok', records: [{ exchange: '', priority: 10 }] }, ok, ok);
    expect(rootOnly).toMatchObject({ mx_record_status: 'invalid', a_record_fallback: 'invalid', has_null_mx: false });
  });

  it('no MX and an unanswered A/AAAA leaves the fallback unknown, unless one address answered', () => {
    const error = { status: 'error', reason: 'timeout' } as const;
    const nodata = { status: 'nodata' } as const;
    expect(mailRoutingFacts(nodata, error, nodata)).toMatchObject({
      mx_record_status: 'invalid',
      a_record_fallback: null,
      a_record_count: null,
      aaaa_record_count: 0,
    });
    expect(mailRoutingFacts(nodata, error, { status: 'ok', records: ['2001:db8::1'] })).toMatchObject({ a_record_fallback: 'valid' });
  });
});

/** Errors, warnings and action with `checks` (default both) enabled in `mode` (and `on_unknown`). */
async function decision(email: string, mode: 'hard' | 'soft', onUnknown?: 'allow' | 'block', checks = ['mx_record', 'fallback_a_record']) {
  const config = { mode, ...(onUnknown ? { on_unknown: onUnknown } : {}) };
  const { action, errors, warnings } = await decisionFor(Object.fromEntries(checks.map((check) => [check, config])), email, { network });
  return { action, errors: errors.sort(), warnings: warnings.sort() };
}

describe('dns checks', () => {
  it('hard mode blocks with errors; soft mode warns and allows', async () => {
    expect(await decision('jane@nx.test', 'hard')).toEqual({ action: 'block', errors: ['no_a_record', 'no_mx_records'], warnings: [] });
    expect(await decision('jane@nx.test', 'soft')).toEqual({ action: 'allow', errors: [], warnings: ['no_a_record', 'no_mx_records'] });
    expect(await decision('jane@aonly.test', 'hard')).toEqual({ action: 'block', errors: ['no_mx_records'], warnings: [] });
    expect(await decision('jane@aonly.test', 'soft')).toEqual({ action: 'allow', errors: [], warnings: ['no_mx_records'] });
  });

  it('an unanswered lookup never blocks by itself; on_unknown decides', async () => {
    expect(await decision('jane@servfail.test', 'hard')).toMatchObject({ errors: [], warnings: [] });
    expect((await decision('jane@servfail.test', 'hard')).action).not.toBe('block');
    for (const check of ['mx_record', 'fallback_a_record']) {
      // on_unknown's verdict names why: the check's evidence was unknown.
      expect(await decision('jane@servfail.test', 'hard', 'block', [check]), check).toEqual({ action: 'block', errors: [`${check}_unknown`], warnings: [] });
      expect(await decision('jane@silent.test', 'soft', 'block', [check]), check).toMatchObject({ action: 'block' });
      expect((await decision('jane@mx.test', 'hard', 'block', [check])).action, check).not.toBe('block');
      expect((await decision('jane@aonly.test', 'soft', 'block', [check])).action, check).not.toBe('block');
    }
  });
});
