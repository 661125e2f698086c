import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FactCatalog } from '../../src/engine/catalog.js';
import type { VelocityReader } from '../../src/engine/plugin.js';
import { loadPolicy } from '../../src/policy/load.js';
import type { Store } from '../../src/store/database.js';
import type { NewLabel } from '../../src/store/labels.js';
import { openSqliteTestStore } from '../../test/support/databases.js';
import { readerOf } from '../../test/support/history.js';
import { labelFor, reputationOf } from '../../test/support/labels.js';
import { checksPolicy, evaluateFor, testPlugin } from '../../test/support/plugin-tester.js';
import { registry } from '../index.js';
import velocity from '../velocity/index.js';
import risk from './index.js';
import { DEFAULT_LEVELS, DEFAULT_WEIGHTS } from './score.js';

const NOW = Date.UTC(2026, 10, 24, 3, 0, 0);
const MIN = 60_000;
const now = () => NOW;

/** Four earlier addresses within 10 minutes: this request is the fifth, the default high_velocity threshold. */
const BUSY_IP = '203.0.113.50';
/** Three earlier addresses within 10 minutes: this request is the fourth, one short. */
const QUIET_IP = '203.0.113.51';
/** Four earlier addresses, all 20 minutes ago: five in total, one in the last 10 minutes. */
const OLD_IP = '203.0.113.52';

let store: Store;
const reader: VelocityReader = readerOf(() => store, 'prj_risk');

beforeAll(async () => {
  store = await openSqliteTestStore();
  const seen = (email: string, ip: string, ago: number) =>
    store.events.record({
      projectId: 'prj_risk',
      endpoint: 'verify',
      email,
      emailLower: email,
      baseEmail: email,
      action: 'allow',
      createdAt: NOW - ago,
      ipv4: ip,
    });
  for (let i = 0; i < 4; i++) {
    await seen(`busy${i}@example.com`, BUSY_IP, (i + 1) * MIN);
    await seen(`old${i}@example.com`, OLD_IP, 20 * MIN);
    if (i < 3) await seen(`quiet${i}@example.com`, QUIET_IP, (i + 1) * MIN);
  }
});
afterAll(() => store.close());

const none = { risk_score: 0, risk_level: null, risk_score_breakdown: {}, risk_breakdown_signals: null, risk_breakdown_failures: null };
/** The facts of one signal present alone, at its default weight. */
const signal = (name: keyof typeof DEFAULT_WEIGHTS, level: string) => ({
  risk_score: DEFAULT_WEIGHTS[name],
  risk_level: level,
  risk_score_breakdown: { [name]: DEFAULT_WEIGHTS[name] },
  risk_breakdown_signals: name,
  risk_breakdown_failures: null,
});
const failure = (name: keyof typeof DEFAULT_WEIGHTS, level: string) => ({
  risk_score: DEFAULT_WEIGHTS[name],
  risk_level: level,
  risk_score_breakdown: { [name]: DEFAULT_WEIGHTS[name] },
  risk_breakdown_signals: null,
  risk_breakdown_failures: `${name}:${DEFAULT_WEIGHTS[name]}`,
});

// Offline (network checks off): every network signal is unknown and adds nothing.
testPlugin(risk, [
  { name: 'nothing present: score 0, no level, empty breakdown', email: 'jane.doe@example.com', facts: none, fires: [] },
  { name: 'random subdomain alone', email: 'a@x7kq2m9vz3p8.example.com', facts: signal('random_subdomain', 'low'), fires: [] },
  { name: 'UUID subdomain alone', email: 'a@550e8400-e29b-41d4-a716-446655440000.example.com', facts: signal('uuid_subdomain', 'low'), fires: [] },
  { name: 'deep nesting alone', email: 'a@a.b.c.d.example.com', facts: signal('deep_nesting', 'low'), fires: [] },
  { name: 'unknown TLD alone', email: 'jane@example.notatld', facts: signal('unknown_tld', 'low'), fires: [] },
  { name: 'invalid format alone', email: 'no-at-sign', facts: failure('structure', 'medium'), fires: [] },
  { name: 'disposable domain alone', email: 'jane@mailinator.com', facts: failure('disposable_domain', 'medium'), fires: [] },
  { name: 'fraud pattern alone', email: 'x7kq2m9vz3p8@example.com', facts: failure('fraud_pattern_detection', 'low'), fires: [] },
  { name: 'machine-made domain on an abused TLD alone: medium, never fires', email: 'jane@xkqzv7.xyz', facts: signal('random_domain', 'medium'), fires: [] },
  { name: 'the same name on .com adds nothing', email: 'jane@xkqzv7.com', facts: none, fires: [] },
  { name: 'a word on an abused TLD adds nothing', email: 'jane@strengths.xyz', facts: none, fires: [] },
  {
    name: 'two contributors: the breakdown lists both and sums to the score',
    email: 'x7kq2m9vz3p8@mailinator.com',
    facts: {
      risk_score: 60,
      risk_level: 'high',
      risk_score_breakdown: { disposable_domain: 40, fraud_pattern_detection: 20 },
      risk_breakdown_signals: null,
      risk_breakdown_failures: 'disposable_domain:40,fraud_pattern_detection:20',
    },
    fires: ['risk_score'],
  },
  {
    name: 'a weight of 0 turns a contributor off',
    email: 'jane@mailinator.com',
    options: { risk_score: { weights: { disposable_domain: 0 } } },
    facts: none,
    fires: [],
  },
  // Default level thresholds (low 1, medium 30, high 60, critical 85): one below and at each.
  ...(
    [
      [0, null],
      [1, 'low'],
      [DEFAULT_LEVELS.medium - 1, 'low'],
      [DEFAULT_LEVELS.medium, 'medium'],
      [DEFAULT_LEVELS.high - 1, 'medium'],
      [DEFAULT_LEVELS.high, 'high'],
      [DEFAULT_LEVELS.critical - 1, 'high'],
      [DEFAULT_LEVELS.critical, 'critical'],
    ] as const
  ).map(([score, level]) => ({
    name: `score ${score} is level ${level}`,
    email: 'a@x7kq2m9vz3p8.example.com',
    options: { risk_score: { weights: { random_subdomain: score } } },
    facts: { risk_score: score, risk_level: level },
    fires: level === 'high' || level === 'critical' ? ['risk_score'] : [],
  })),
  {
    name: 'levels are options: low raised above the score leaves the level null',
    email: 'a@x7kq2m9vz3p8.example.com',
    options: { risk_score: { levels: { low: 16 } } },
    facts: { risk_score: 15, risk_level: null },
    fires: [],
  },
  {
    name: 'min_level is an option: medium fires on a disposable domain',
    email: 'jane@mailinator.com',
    options: { risk_score: { min_level: 'medium' } },
    facts: { risk_score: 40, risk_level: 'medium' },
    fires: ['risk_score'],
  },
]);

// With DNS, RDAP and website answers.
const YEARS = 4000;
testPlugin(
  risk,
  [
    { name: 'an established domain with mail: nothing', email: 'jane@old-shop.com', facts: none, fires: [] },
    { name: 'new domain alone (its health is risky, not poor)', email: 'jane@fresh-shop.com', facts: signal('new_domain', 'low'), fires: [] },
    {
      name: 'new and machine-made on an abused TLD: high',
      email: 'jane@q8w3ejd.top',
      facts: {
        risk_score: 60,
        risk_level: 'high',
        risk_score_breakdown: { new_domain: 20, random_domain: 40 },
        risk_breakdown_signals: 'new_domain,random_domain',
        risk_breakdown_failures: null,
      },
      fires: ['risk_score'],
    },
    { name: 'established and machine-made: medium', email: 'jane@xkqzv7.xyz', facts: signal('random_domain', 'medium'), fires: [] },
    { name: 'no MX alone (A fallback: health risky, not poor)', email: 'jane@nomx-shop.com', facts: failure('mx_record', 'low'), fires: [] },
    {
      name: 'poor health alone (dead, with the no-MX failure weighted 0)',
      email: 'jane@gone-shop.com',
      options: { risk_score: { weights: { mx_record: 0 } } },
      facts: signal('poor_health', 'low'),
      fires: [],
    },
    {
      name: "a week-old domain on a disposable service's MX host: high",
      email: 'jane@rotating-inbox.com',
      facts: {
        risk_score: 60,
        risk_level: 'high',
        risk_score_breakdown: { new_domain: 20, disposable_infrastructure: 40 },
        risk_breakdown_signals: 'new_domain,disposable_infrastructure',
        risk_breakdown_failures: null,
      },
      fires: ['risk_score'],
    },
    {
      name: "an established domain on a disposable service's MX host: medium",
      email: 'jane@old-rotating.com',
      facts: signal('disposable_infrastructure', 'medium'),
      fires: [],
    },
    {
      name: 'a dead domain: poor health and no MX',
      email: 'jane@gone-shop.com',
      facts: { risk_score: 50, risk_level: 'medium', risk_breakdown_signals: 'poor_health', risk_breakdown_failures: 'mx_record:25' },
      fires: [],
    },
  ],
  {
    now,
    network: {
      'old-shop.com': { mx: ['mx.old-shop.com'], a: ['192.0.2.1'], registered_days_ago: YEARS, website: true },
      'fresh-shop.com': { mx: ['mx.fresh-shop.com'], a: ['192.0.2.2'], registered_days_ago: 3, website: true },
      'nomx-shop.com': { mx: [], a: ['192.0.2.3'], registered_days_ago: YEARS, website: true },
      'gone-shop.com': 'nxdomain',
      'q8w3ejd.top': { mx: ['mx.q8w3ejd.top'], a: ['192.0.2.4'], registered_days_ago: 3, website: true },
      'xkqzv7.xyz': { mx: ['mx.xkqzv7.xyz'], a: ['192.0.2.5'], registered_days_ago: YEARS, website: true },
      'rotating-inbox.com': { mx: ['mx.guerrillamail.com'], a: ['192.0.2.6'], registered_days_ago: 6, website: true },
      'old-rotating.com': { mx: ['mx.guerrillamail.com'], a: ['192.0.2.7'], registered_days_ago: YEARS, website: true },
    },
  },
);

// With the store's IP history.
testPlugin(
  risk,
  [
    { name: 'no IP: velocity and IP intelligence unknown, add nothing', email: 'next@example.com', facts: none, fires: [] },
    // Addresses from the ip-intelligence plugin's shipped lists (plugins/ip-intelligence/data).
    { name: 'a cloud provider address alone (google_cloud)', email: 'next@example.com', ipv4: '34.1.2.3', facts: signal('common_provider', 'low'), fires: [] },
    { name: 'a VPN address alone', email: 'next@example.com', ipv4: '2.26.157.10', facts: signal('vpn', 'low'), fires: [] },
    { name: 'a Tor exit counts as vpn', email: 'next@example.com', ipv4: '5.2.67.226', facts: signal('vpn', 'low'), fires: [] },
    {
      name: 'the fifth address from an IP within 10 minutes: high velocity alone, high',
      email: 'next@example.com',
      ipv4: BUSY_IP,
      facts: signal('high_velocity', 'high'),
      fires: ['risk_score'],
    },
    { name: 'the fourth address within 10 minutes: below the threshold', email: 'next@example.com', ipv4: QUIET_IP, facts: none, fires: [] },
    { name: 'five addresses, but only one within 10 minutes', email: 'next@example.com', ipv4: OLD_IP, facts: none, fires: [] },
    {
      name: 'the window is an option: five in total is high velocity',
      email: 'next@example.com',
      ipv4: OLD_IP,
      options: { risk_score: { high_velocity: { window: 'total' } } },
      facts: signal('high_velocity', 'high'),
      fires: ['risk_score'],
    },
    {
      name: 'the threshold is an option',
      email: 'next@example.com',
      ipv4: QUIET_IP,
      options: { risk_score: { high_velocity: { threshold: 4 } } },
      facts: signal('high_velocity', 'high'),
      fires: ['risk_score'],
    },
    {
      name: 'capped at 100; the breakdown still sums to 120',
      email: 'x7kq2m9vz3p8@mailinator.com',
      ipv4: BUSY_IP,
      facts: {
        risk_score: 100,
        risk_level: 'critical',
        risk_score_breakdown: { high_velocity: 60, disposable_domain: 40, fraud_pattern_detection: 20 },
        risk_breakdown_signals: 'high_velocity',
        risk_breakdown_failures: 'disposable_domain:40,fraud_pattern_detection:20',
      },
      fires: ['risk_score'],
    },
  ],
  { now, velocity: reader },
);

describe('risk: failures from checks with project lists', () => {
  it.each([
    ['known_abuse_domain', 50],
    ['spam_trap_domain', 50],
  ])('a %s adds its weight (%i)', async (check, weight) => {
    const policy = checksPolicy({ risk_score: { mode: 'hard' }, [check]: { mode: 'hard', options: { add: ['listed-shop.com'] } } });
    const evaluation = await evaluateFor(policy, { email: 'jane@listed-shop.com' });
    expect(await evaluation.fact('risk_score_breakdown')).toEqual({ [check]: weight });
    expect(await evaluation.fact('risk_breakdown_failures')).toBe(`${check}:${weight}`);
  });
});

describe('risk in a policy', () => {
  it('a free rule can act on risk_score and risk_level without enabling the check', async () => {
    const text = JSON.stringify({
      version: '1',
      checks: { structure: { mode: 'hard' } },
      rules: [
        {
          name: 'risky',
          conditions: { all: [{ fact: 'risk_score', operator: 'greaterThanInclusive', value: 40 }] },
          action: 'challenge',
          warning: 'risky_sign_up',
        },
        { name: 'high', conditions: { all: [{ fact: 'risk_level', operator: 'equal', value: 'high' }] }, action: 'block', error: 'high_risk_sign_up' },
      ],
    });
    const policy = loadPolicy({ name: 'risk-rules', file: 'risk-rules.json', text }, new FactCatalog(registry));
    expect((await evaluateFor(policy, { email: 'jane@mailinator.com' })).decision.action).toBe('challenge');
    expect((await evaluateFor(policy, { email: 'jane@example.com' })).decision.action).toBe('allow');
    expect((await evaluateFor(policy, { email: 'x7kq2m9vz3p8@mailinator.com' })).decision.action).toBe('block');
  });
});

describe('risk options', () => {
  it('names only velocity windows the velocity plugin counts', () => {
    const schema = risk.checks.risk_score?.options as { properties: { high_velocity: { properties: { window: { enum: string[] } } } } };
    for (const window of schema.properties.high_velocity.properties.window.enum) {
      expect(Object.keys(velocity.facts)).toContain(window === 'total' ? 'distinct_emails_in_ip' : `distinct_emails_in_ip_last_${window}`);
    }
  });

  it('refuses a weight over 100 and an unknown contributor, naming the option', () => {
    expect(() => checksPolicy({ risk_score: { options: { weights: { vpn_ip: 10 } } } })).toThrow(/weights/);
    expect(() => checksPolicy({ risk_score: { options: { weights: { new_domain: 101 } } } })).toThrow(/weights.*new_domain|new_domain/);
  });
});

describe("risk: the project's labels (the reputation plugin's counts)", () => {
  let labels: Store;
  let project: string;
  const reputation = reputationOf(
    () => labels,
    () => [project],
  );
  beforeAll(async () => {
    labels = await openSqliteTestStore();
    project = (await labels.projects.create({ name: 'risky', policy: 'default' })).id;
    const at = (email: string, over: Partial<NewLabel> = {}) => labels.labels.record(labelFor(project, email, NOW, over), NOW);
    await at('fraud@reported-shop.com', { ipv4: '198.51.100.1', device: 'dev_reported' });
    await at('b@reported-shop.com', { label: 'chargeback', ipv4: '198.51.100.2' });
    await at('c@reported-shop.com', { label: 'abuse' });
    for (const email of ['a@vouched-shop.com', 'b@vouched-shop.com', 'c@vouched-shop.com', 'd@vouched-shop.com']) await at(email, { label: 'legitimate' });
    for (const email of ['x@vouched-shop.com', 'y@vouched-shop.com', 'z@vouched-shop.com']) await at(email, { label: 'bounced' });
  });
  afterAll(() => labels.close());

  const breakdown = async (email: string, input: { ipv4?: string; device?: string } = {}, options: Record<string, unknown> = {}) => {
    const policy = checksPolicy({ risk_score: { mode: 'hard', options } });
    const evaluation = await evaluateFor(policy, { email, ...input }, { reputation, now });
    return evaluation.fact('risk_score_breakdown');
  };

  it('the address itself labelled bad: reported_email (60), with its domain (3 bad labels), network and device', async () => {
    expect(await breakdown('fraud@reported-shop.com', { ipv4: '198.51.100.77', device: 'dev_reported' })).toEqual({
      reported_email: 60,
      reported_domain: 30,
      reported_ip: 25,
      reported_device: 40,
    });
  });

  it('another address of the domain: the domain alone (30, medium)', async () => {
    expect(await breakdown('new@reported-shop.com')).toEqual({ reported_domain: 30 });
  });

  it('a domain with more legitimate than bad labels is not reported (3 bounced, 4 legitimate)', async () => {
    expect(await breakdown('new@vouched-shop.com')).toEqual({});
  });

  it('thresholds from the options: reported.domain_at_least 4 leaves the domain out; weights 0 read no labels', async () => {
    expect(await breakdown('new@reported-shop.com', {}, { reported: { domain_at_least: 4 } })).toEqual({});
    const off = { reported_email: 0, reported_domain: 0, reported_ip: 0, reported_device: 0 };
    let reads = 0;
    const counting = {
      read: (q: Parameters<typeof reputation.read>[0]) => {
        reads += 1;
        return reputation.read(q);
      },
    };
    const policy = checksPolicy({ risk_score: { mode: 'hard', options: { weights: off } } });
    const evaluation = await evaluateFor(policy, { email: 'fraud@reported-shop.com' }, { reputation: counting, now });
    expect(await evaluation.fact('risk_score_breakdown')).toEqual({});
    expect(reads).toBe(0);
  });
});
