// The domain-age plugin against a real RDAP server on 127.0.0.1 (node:http), reached through the real
// RDAP lookup (src/network/rdap.ts) with its base URL forced to the test server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkAccess } from '../../src/engine/plugin.js';
import { OFFLINE } from '../../src/network/offline.js';
import { createRegistrationLookup, type RegistrationService } from '../../src/network/rdap.js';
import { computeFacts, decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';

const DAY = 86_400_000;
const NOW = Date.now();
const OLD = Date.parse('1997-09-15T04:00:00Z');

/** Registration time per domain the server knows; anything else is 404; `slow.com` never answers. */
const REGISTERED: Record<string, number> = {
  'old-company.com': OLD,
  'fresh.com': NOW - 3 * DAY,
  'month.com': NOW - 30 * DAY,
  'almost-month.com': NOW - 29 * DAY - 23 * 3_600_000,
  'today.com': NOW - 60_000,
  'skewed.com': NOW + 3_600_000,
  'example.co.uk': OLD,
  'xn--bcher-kva.com': NOW - 10 * DAY,
};

let server: Server;
let rdap: RegistrationService;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '').replace(/^.*\/domain\//, ''));
    asked.push(name);
    if (name === 'slow.com') return;
    const registered = REGISTERED[name];
    if (registered === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/rdap+json' });
    res.end(
      JSON.stringify({ objectClassName: 'domain', ldhName: name, events: [{ eventAction: 'registration', eventDate: new Date(registered).toISOString() }] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rdap = createRegistrationLookup({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
});
afterAll(async () => {
  rdap.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Each lookup gets a fresh request budget: the tester's network object is made before the server starts. */
function networkWith(budgetMs: number): NetworkAccess {
  return {
    ...OFFLINE,
    enabled: true,
    registration: { registered: (domain) => rdap.forRequest({ persist: false, signal: AbortSignal.timeout(budgetMs) }).registered(domain) },
  };
}
const network = networkWith(1500);

const unknown = { domain_age_days: null, domain_age_signal: 'unknown', domain_registered_at: null };
const none = { domain_age_days: null, domain_age_signal: null, domain_registered_at: null };

testPlugin(
  plugin,
  [
    {
      email: 'jane@old-company.com',
      facts: { domain_age_days: Math.floor((NOW - OLD) / DAY), domain_age_signal: 'established', domain_registered_at: '1997-09-15T04:00:00.000Z' },
      fires: [],
    },
    {
      email: 'jane@fresh.com',
      facts: { domain_age_days: 3, domain_age_signal: 'new_domain', domain_registered_at: new Date(NOW - 3 * DAY).toISOString() },
      fires: ['domain_age'],
    },
    { name: 'exactly 30 days is established', email: 'jane@month.com', facts: { domain_age_days: 30, domain_age_signal: 'established' }, fires: [] },
    { name: '29 days 23 hours is new', email: 'jane@almost-month.com', facts: { domain_age_days: 29, domain_age_signal: 'new_domain' }, fires: ['domain_age'] },
    { name: 'registered a minute ago', email: 'jane@today.com', facts: { domain_age_days: 0, domain_age_signal: 'new_domain' }, fires: ['domain_age'] },
    {
      name: 'registration an hour ahead (clock skew) is age 0',
      email: 'jane@skewed.com',
      facts: { domain_age_days: 0, domain_age_signal: 'new_domain' },
      fires: ['domain_age'],
    },
    {
      name: 'a larger threshold',
      email: 'jane@month.com',
      options: { domain_age: { new_domain_days: 60 } },
      facts: { domain_age_signal: 'new_domain' },
      fires: ['domain_age'],
    },
    {
      name: 'a threshold one day above the age',
      email: 'jane@month.com',
      options: { domain_age: { new_domain_days: 31 } },
      facts: { domain_age_signal: 'new_domain' },
      fires: ['domain_age'],
    },
    {
      name: 'a smaller threshold',
      email: 'jane@fresh.com',
      options: { domain_age: { new_domain_days: 2 } },
      facts: { domain_age_signal: 'established' },
      fires: [],
    },
    {
      name: 'the registrable domain is asked, not the subdomain',
      email: 'jane@mail.eu.old-company.com',
      facts: { domain_age_signal: 'established' },
      fires: [],
    },
    { name: 'under a two-label suffix', email: 'jane@shop.example.co.uk', facts: { domain_age_signal: 'established' }, fires: [] },
    { name: 'IDN asked in punycode', email: 'jane@bücher.com', facts: { domain_age_days: 10, domain_age_signal: 'new_domain' }, fires: ['domain_age'] },
    { name: 'not registered (404) is unknown, not new', email: 'jane@never-registered.com', facts: unknown, fires: [] },
    { name: 'address literal: not applicable', email: 'jane@[192.0.2.1]', facts: none, fires: [] },
    { name: 'a public suffix alone: not applicable', email: 'jane@co.uk', facts: none, fires: [] },
    { name: 'invalid address', email: 'not an address', facts: none, fires: [] },
  ],
  { network, now: () => NOW },
);

describe('domain-age when the world does not answer', () => {
  it('asks RDAP about the registrable domain only', async () => {
    asked.length = 0;
    await computeFacts(plugin, { email: 'jane@a.b.fresh.com' }, { network, now: () => NOW });
    expect(asked).toEqual([]); // fresh.com is already remembered by the lookup
    await computeFacts(plugin, { email: 'jane@x.y.never-seen.com' }, { network, now: () => NOW });
    expect(asked).toEqual(['never-seen.com']);
  });

  it('is unknown once the budget is spent when RDAP is slow', async () => {
    const budget = new AbortController();
    const slow: NetworkAccess = {
      ...network,
      registration: { registered: (domain) => rdap.forRequest({ persist: false, signal: budget.signal }).registered(domain) },
    };
    let settled = false;
    const facts = computeFacts(plugin, { email: 'jane@slow.com' }, { network: slow, now: () => NOW }).finally(() => {
      settled = true;
    });
    await expect.poll(() => asked.includes('slow.com')).toBe(true);
    expect(settled).toBe(false);
    budget.abort(); // long before the lookup's own timeout (3 s)
    expect(await facts).toEqual(unknown);
  });

  it('is unknown, at once, when network checks are off', async () => {
    expect(await computeFacts(plugin, { email: 'jane@old-company.com' })).toEqual(unknown);
  });
});

describe('domain_age check', () => {
  async function actionFor(email: string, options?: Record<string, unknown>, onUnknown?: string): Promise<string> {
    const check = { mode: 'hard', action: 'challenge', ...(options ? { options } : {}), ...(onUnknown ? { on_unknown: onUnknown } : {}) };
    const decision = await decisionFor({ domain_age: check }, email, { network, now: () => NOW });
    // The check names its reason whenever it fires, and on_unknown's verdict names its own: domain_age_unknown.
    const fired = (source: string) => decision.fired.some((v) => v.name === 'domain_age' && v.source === source);
    expect(decision.errors).toEqual([...(fired('check') ? ['domain_is_new'] : []), ...(fired('unknown') ? ['domain_age_unknown'] : [])]);
    return decision.action;
  }

  it('takes its action when it fires, naming domain_is_new; default_action otherwise', async () => {
    expect(await actionFor('jane@fresh.com')).toBe('challenge');
    expect(await actionFor('jane@old-company.com')).toBe('allow');
  });

  it('leaves an unknown age to on_unknown', async () => {
    expect(await actionFor('jane@never-registered.com')).toBe('allow');
    expect(await actionFor('jane@never-registered.com', undefined, 'block')).toBe('block');
    expect(await actionFor('jane@old-company.com', undefined, 'block')).toBe('allow');
    expect(await actionFor('jane@fresh.com', undefined, 'block')).toBe('challenge');
  });

  it('refuses options outside the schema, naming the check', async () => {
    await expect(actionFor('jane@fresh.com', { new_domain_days: 0 })).rejects.toThrow(/domain_age/);
    await expect(actionFor('jane@fresh.com', { days: 3 })).rejects.toThrow(/domain_age/);
  });
});
