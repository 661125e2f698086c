import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginContext, ReputationReader } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import { DAY_MS, MAX_WINDOW_DAYS, type NewLabel, reputationProjects, SHARED_PROJECT } from '../../src/store/labels.js';
import { openSqliteTestStore } from '../../test/support/databases.js';
import { labelFor, reputationOf } from '../../test/support/labels.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import plugin, { MAX_WINDOW_DAYS as PLUGIN_MAX_WINDOW_DAYS } from './index.js';

const NOW = Date.UTC(2026, 11, 3, 12);
const now = () => NOW;

let store: Store;
let projectId: string;
let otherId: string;
const label = (email: string, over: Partial<NewLabel> = {}): NewLabel => labelFor(projectId, email, NOW, over);
const readerOf = (projectIds: () => string[]): ReputationReader => reputationOf(() => store, projectIds);

beforeAll(async () => {
  store = await openSqliteTestStore();
  projectId = (await store.projects.create({ name: 'shop', policy: 'default' })).id;
  otherId = (await store.projects.create({ name: 'blog', policy: 'default' })).id;
  const labels: NewLabel[] = [
    label('fraudster@bad.example', { ipv4: '203.0.113.7', device: 'dev_bad' }),
    label('two@bad.example', { label: 'chargeback', ipv6: '2001:db8:1:2::5' }),
    label('three@bad.example', { label: 'spam_trap' }),
    label('old@bad.example', { labelledAt: NOW - 40 * DAY_MS }),
    label('jane@good.example', { label: 'legitimate', ipv4: '198.51.100.9', device: 'dev_good' }),
    label('joe@good.example', { label: 'legitimate' }),
    label('bounce@good.example', { label: 'bounced' }),
    label('ex@Mixed.Example', { label: 'abuse' }),
    // Another project's label, shared: read only by a project reading the shared counts.
    label('elsewhere@bad.example', { projectId: otherId, shared: true, device: 'dev_bad' }),
  ];
  for (const l of labels) await store.labels.record(l, NOW);
});
afterAll(() => store?.close());

const own = readerOf(() => reputationProjects(projectId, false));

testPlugin(
  plugin,
  [
    {
      name: 'a reported address: its domain, network and device counted within the window',
      email: 'fraudster@bad.example',
      ipv4: '203.0.113.250',
      device: 'dev_bad',
      facts: {
        email_reported: true,
        domain_reported_count: 3,
        domain_legitimate_count: 0,
        ip_reported_count: 1,
        device_reported_count: 1,
        domain_label_counts: { fraud: 2, chargeback: 1, spam_trap: 1 },
      },
      fires: ['reputation'],
    },
    {
      name: 'another address of a reported domain: not reported itself; 3 bad labels stay under domain_at_least 5',
      email: 'new@bad.example',
      facts: { email_reported: false, domain_reported_count: 3, ip_reported_count: null, device_reported_count: null },
      fires: [],
    },
    {
      name: 'domain_at_least 3: the domain fires the check',
      email: 'new@bad.example',
      options: { reputation: { domain_at_least: 3 } },
      facts: { domain_reported_count: 3 },
      fires: ['reputation'],
    },
    {
      name: 'window_days 60: the label 40 days old counts too',
      email: 'new@bad.example',
      options: { reputation: { window_days: 60, domain_at_least: 4 } },
      facts: { domain_reported_count: 4 },
      fires: ['reputation'],
    },
    {
      name: 'the address with a plus tag is its base address',
      email: 'Fraudster+x@bad.example',
      facts: { email_reported: true },
      fires: ['reputation'],
    },
    {
      name: 'an old label reports the address whatever the window',
      email: 'old@bad.example',
      options: { reputation: { window_days: 1 } },
      facts: { email_reported: true, domain_reported_count: 3 },
      fires: ['reputation'],
    },
    {
      name: 'a domain customers vouch for: legitimate labels counted apart',
      email: 'someone@good.example',
      ipv4: '198.51.100.1',
      device: 'dev_good',
      facts: { email_reported: false, domain_reported_count: 1, domain_legitimate_count: 2, ip_reported_count: 0, device_reported_count: 0 },
      fires: [],
    },
    {
      name: 'a legitimate label does not report its address',
      email: 'jane@good.example',
      facts: { email_reported: false },
      fires: [],
    },
    {
      name: 'an IPv6 address: its /64 counted',
      email: 'x@elsewhere.example',
      ipv6: '2001:db8:1:2::99',
      facts: { ip_reported_count: 1, domain_reported_count: 0, domain_label_counts: {} },
      fires: [],
    },
    {
      name: 'IPv4 and IPv6: per label the larger of the two networks (fraud on the /24, chargeback on the /64); ip_at_least 2 fires',
      email: 'x@elsewhere.example',
      ipv4: '203.0.113.1',
      ipv6: '2001:db8:1:2::99',
      options: { reputation: { ip_at_least: 2 } },
      facts: { ip_reported_count: 2 },
      fires: ['reputation'],
    },
    {
      name: 'a domain typed in capitals counts as lower case',
      email: 'other@MIXED.example',
      facts: { domain_reported_count: 1 },
      fires: [],
    },
    {
      name: 'another project’s labels are out of reach',
      email: 'elsewhere@bad.example',
      device: 'dev_bad',
      facts: { email_reported: false, device_reported_count: 1 },
      fires: ['reputation'],
    },
    {
      name: 'an invalid address: its facts unknown, the IP still counted',
      email: 'not an address',
      ipv4: '203.0.113.8',
      facts: { email_reported: null, domain_reported_count: null, domain_legitimate_count: null, domain_label_counts: null, ip_reported_count: 1 },
      fires: [],
    },
  ],
  { reputation: own, now },
);

describe('a project reading the shared counts', () => {
  testPlugin(
    plugin,
    [
      {
        name: 'the other project’s shared label counts; its own labels are not counted twice',
        email: 'elsewhere@bad.example',
        device: 'dev_bad',
        facts: { email_reported: true, domain_reported_count: 3, device_reported_count: 1 },
        fires: ['reputation'],
      },
    ],
    // Its own rows (3 bad labels of bad.example in the window, 1 of dev_bad; none shared) and the shared ones (the other's
    // fraud label): per day and label the larger, so the two fraud labels of one day count once (a lower bound, see README).
    { reputation: readerOf(() => reputationProjects(projectId, true)), now },
  );
  testPlugin(
    plugin,
    [
      {
        name: 'the sharing project sees its own label once and the unshared ones not at all',
        email: 'new@bad.example',
        device: 'dev_bad',
        facts: { email_reported: false, domain_reported_count: 1, device_reported_count: 1 },
        fires: ['reputation'],
      },
    ],
    { reputation: readerOf(() => [SHARED_PROJECT]), now },
  );
});

describe('reputation plugin', () => {
  it('has no labels to read without a reader: counts of 0, no guess', async () => {
    const facts = await computeFacts(plugin, { email: 'a@bad.example', ipv4: '203.0.113.7' }, { now });
    expect(facts).toMatchObject({ email_reported: false, domain_reported_count: 0, ip_reported_count: 0, device_reported_count: null });
  });

  it('makes no guess when the store fails: the error is reported, the facts are unknown', async () => {
    const failing: ReputationReader = { read: () => Promise.reject(new Error('Defined query timeout of 2000ms exceeded')) };
    await expect(computeFacts(plugin, { email: 'a@bad.example' }, { reputation: failing, now })).rejects.toThrow(/query timeout/);
  });

  it('asks nothing of the store for a request with no subject', async () => {
    let asked = 0;
    const counting: ReputationReader = {
      read: async () => {
        asked += 1;
        return { email: null, domain: null, network: null, device: null };
      },
    };
    const ctx = {
      input: { email: 'x', ipv4: null, ipv6: null, device: null },
      facts: async () => [false, null, null],
      options: () => ({}),
      reputation: counting,
      now,
    };
    expect(await plugin.run(ctx as unknown as PluginContext)).toEqual({});
    expect(asked).toBe(0);
  });

  it("validates its options; its longest window is the store's", () => {
    expect(PLUGIN_MAX_WINDOW_DAYS).toBe(MAX_WINDOW_DAYS);
    const validate = new Ajv.default({ strict: true }).compile(plugin.checks.reputation?.options ?? {});
    expect(validate({ window_days: 1, domain_at_least: 1 })).toBe(true);
    expect(validate({ window_days: 365 })).toBe(true);
    for (const bad of [{ window_days: 0 }, { window_days: 366 }, { window_days: 1.5 }, { ip_at_least: 0 }, { extra: 1 }]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
