import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FactValues, PluginContext, Velocity, VelocityReader } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import type { NewEvent } from '../../src/store/events.js';
import { openSqliteTestStore } from '../../test/support/databases.js';
import { pastEvent, readerOf } from '../../test/support/history.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import velocity from './index.js';
import { createdTime } from './windows.js';

const NOW = Date.UTC(2026, 10, 22, 3, 9, 1, 123); // 2026-11-22T03:09:01.123Z
const MIN = 60_000;
const HOUR = 60 * MIN;
const now = () => NOW;

const IP4 = '203.0.113.7';
const IP6 = '2001:db8::42';
const CROWDED_IP = '192.0.2.50';
const DEVICE = 'dev_9f2c';
const DAY = 24 * HOUR;

let store: Store;

/** Reads the store opened in beforeAll; bound to one project as the service binds it. */
const reader = (projectId: string): VelocityReader => readerOf(() => store, projectId);

const seen = (projectId: string, email: string, ago: number, ip: { ipv4?: string; ipv6?: string; device?: string }): NewEvent =>
  pastEvent(projectId, email, NOW - ago, ip);

beforeAll(async () => {
  store = await openSqliteTestStore();
  await Promise.all(
    [
      seen('prj_a', 'alice@x.io', 1 * MIN, { ipv4: IP4 }),
      seen('prj_a', 'bob@x.io', 5 * MIN, { ipv4: IP4 }), // exactly on the 5-minute boundary: inside
      seen('prj_a', 'Carol@x.io', 5 * MIN + 1, { ipv4: IP4 }), // just outside 5 minutes: not a distinct address of them, but its validation counts (its minute does)
      seen('prj_a', 'bob@x.io', 2 * HOUR, { ipv4: IP4 }), // exactly on the 2-hour boundary: inside
      seen('prj_a', 'dave@x.io', 3 * HOUR + 1, { ipv4: IP4 }), // outside every window's distinct addresses (its minute is in the 3-hour count), still in total
      seen('prj_a', 'erin@x.io', 30 * MIN, { ipv6: IP6 }),
      seen('prj_b', 'zed@x.io', 1 * MIN, { ipv4: IP4, ipv6: IP6 }),
      ...Array.from({ length: 30 }, (_, i) => seen('prj_a', `user${i}@x.io`, (i + 1) * 1000, { ipv4: CROWDED_IP })),
      // One device, no IP: three addresses within a day (one of them twice), one just over a day ago.
      seen('prj_a', 'd1@x.io', 2 * MIN, { device: DEVICE }),
      seen('prj_a', 'D1@x.io', 40 * MIN, { device: DEVICE }),
      seen('prj_a', 'd2@x.io', 3 * HOUR, { device: DEVICE }), // exactly on the 3-hour boundary: inside
      seen('prj_a', 'd3@x.io', 20 * HOUR, { device: DEVICE }),
      seen('prj_a', 'd4@x.io', DAY + 1, { device: DEVICE }), // just outside a day
      seen('prj_b', 'other@x.io', MIN, { device: DEVICE }),
    ].map((e) => store.events.record(e)),
  );
});
afterAll(() => store.close());

const entry = (email: string, ago: number) => ({ email_address: email, created_time: createdTime(NOW - ago) });

const nullFacts = Object.fromEntries(Object.keys(velocity.facts).map((name) => [name, null]));
const deviceFactNames = [
  'device',
  'distinct_emails_from_device',
  ...['5_minutes', '10_minutes', '15_minutes', '30_minutes', '2_hour', '3_hour', '1_day'].map((w) => `distinct_emails_from_device_last_${w}`),
];
const nullDeviceFacts = Object.fromEntries(deviceFactNames.map((name) => [name, null]));
const nullIpFacts = Object.fromEntries(
  Object.keys(velocity.facts)
    .filter((n) => !deviceFactNames.includes(n))
    .map((name) => [name, null]),
);

testPlugin(
  velocity,
  [
    {
      name: 'a new address from an IPv4 with three earlier addresses: history plus this request',
      email: 'new@x.io',
      ipv4: IP4,
      facts: {
        has_multiple_emails_in_ip: true,
        distinct_emails_in_ip: 5,
        emails_in_ip: [
          { email_address: 'new@x.io', created_time: '2026-11-22T03:09:01.123+00:00' },
          entry('alice@x.io', 1 * MIN),
          entry('bob@x.io', 5 * MIN),
          entry('carol@x.io', 5 * MIN + 1),
          entry('dave@x.io', 3 * HOUR + 1),
        ],
        total_email_in_ip: 6,
        // Validation counts are minute-granular (never under-count): Carol's 5 min + 1 ms and Dave's
        // 3 h + 1 ms fall in the minutes holding the 5-minute and 3-hour window starts.
        emails_in_ip_last_5_minutes: 4,
        emails_in_ip_last_10_minutes: 4,
        emails_in_ip_last_15_minutes: 4,
        emails_in_ip_last_30_minutes: 4,
        emails_in_ip_last_2_hour: 5,
        emails_in_ip_last_3_hour: 6,
        distinct_emails_in_ip_last_5_minutes: 3,
        distinct_emails_in_ip_last_10_minutes: 4,
        distinct_emails_in_ip_last_15_minutes: 4,
        distinct_emails_in_ip_last_30_minutes: 4,
        distinct_emails_in_ip_last_2_hour: 4,
        distinct_emails_in_ip_last_3_hour: 4,
      },
      fires: ['ip_duplication'],
    },
    {
      name: 'an address seen before (any case) is counted once and listed once, first',
      email: 'ALICE@x.io',
      ipv4: IP4,
      facts: {
        has_multiple_emails_in_ip: true,
        distinct_emails_in_ip: 4,
        emails_in_ip: [
          { email_address: 'alice@x.io', created_time: '2026-11-22T03:09:01.123+00:00' },
          entry('bob@x.io', 5 * MIN),
          entry('carol@x.io', 5 * MIN + 1),
          entry('dave@x.io', 3 * HOUR + 1),
        ],
        total_email_in_ip: 6,
        emails_in_ip_last_5_minutes: 4,
        distinct_emails_in_ip_last_5_minutes: 2,
        distinct_emails_in_ip_last_3_hour: 3,
      },
      fires: ['ip_duplication'],
    },
    {
      name: 'IPv6 history, whatever its spelling; the 30-minute boundary is inside',
      email: 'x@x.io',
      ipv6: '2001:DB8:0::42',
      facts: {
        // Two addresses, under the check's default threshold (3): the flag says what the check says.
        has_multiple_emails_in_ip: false,
        distinct_emails_in_ip: 2,
        emails_in_ip: [{ email_address: 'x@x.io', created_time: createdTime(NOW) }, entry('erin@x.io', 30 * MIN)],
        total_email_in_ip: 2,
        emails_in_ip_last_15_minutes: 1,
        emails_in_ip_last_30_minutes: 2,
        distinct_emails_in_ip_last_15_minutes: 1,
        distinct_emails_in_ip_last_30_minutes: 2,
      },
      fires: [],
    },
    {
      name: 'the flag follows the check options: two addresses reach threshold 2',
      email: 'x@x.io',
      ipv6: IP6,
      options: { ip_duplication: { threshold: 2 } },
      facts: { has_multiple_emails_in_ip: true, distinct_emails_in_ip: 2 },
      fires: ['ip_duplication'],
    },
    {
      name: "the flag follows the check's window: two addresses in total, one within 15 minutes",
      email: 'x@x.io',
      ipv6: IP6,
      options: { ip_duplication: { threshold: 2, window: '15_minutes' } },
      facts: { has_multiple_emails_in_ip: false, distinct_emails_in_ip: 2, distinct_emails_in_ip_last_15_minutes: 1 },
      fires: [],
    },
    {
      name: "IPv4 and IPv6 together: addresses merged, each count the larger of the two addresses'",
      email: 'x@x.io',
      ipv4: IP4,
      ipv6: IP6,
      facts: { distinct_emails_in_ip: 6, total_email_in_ip: 6, emails_in_ip_last_30_minutes: 4 },
      fires: ['ip_duplication'],
    },
    {
      name: 'an IP never seen: only this request',
      email: 'solo@x.io',
      ipv4: '198.51.100.200',
      facts: {
        has_multiple_emails_in_ip: false,
        distinct_emails_in_ip: 1,
        emails_in_ip: [{ email_address: 'solo@x.io', created_time: createdTime(NOW) }],
        total_email_in_ip: 1,
        emails_in_ip_last_5_minutes: 1,
        emails_in_ip_last_3_hour: 1,
        distinct_emails_in_ip_last_5_minutes: 1,
      },
      fires: [],
    },
    {
      name: 'lists at most 20 addresses, this request first, newest first; counts stay whole',
      email: 'late@x.io',
      ipv4: CROWDED_IP,
      facts: {
        emails_in_ip: [
          { email_address: 'late@x.io', created_time: createdTime(NOW) },
          ...Array.from({ length: 19 }, (_, i) => entry(`user${i}@x.io`, (i + 1) * 1000)),
        ],
        distinct_emails_in_ip: 31,
        total_email_in_ip: 31,
        distinct_emails_in_ip_last_5_minutes: 31,
      },
      fires: ['ip_duplication'],
    },
    {
      name: 'a device with history: distinct addresses per window, this one included; no IP facts without an IP',
      email: 'new@x.io',
      device: DEVICE,
      facts: {
        ...nullIpFacts,
        device: DEVICE,
        distinct_emails_from_device: 5,
        distinct_emails_from_device_last_5_minutes: 2,
        distinct_emails_from_device_last_10_minutes: 2,
        distinct_emails_from_device_last_15_minutes: 2,
        distinct_emails_from_device_last_30_minutes: 2,
        distinct_emails_from_device_last_2_hour: 2,
        distinct_emails_from_device_last_3_hour: 3,
        distinct_emails_from_device_last_1_day: 4,
      },
      fires: [],
    },
    {
      name: 'an address the device used before counts once',
      email: 'd3@x.io',
      device: DEVICE,
      facts: { distinct_emails_from_device: 4, distinct_emails_from_device_last_1_day: 3, distinct_emails_from_device_last_3_hour: 3 },
      fires: [],
    },
    {
      name: 'a device never seen: only this request',
      email: 'new@x.io',
      device: 'dev_fresh',
      facts: { device: 'dev_fresh', distinct_emails_from_device: 1, distinct_emails_from_device_last_1_day: 1 },
      fires: [],
    },
    {
      name: 'IP and device together: both sets of facts',
      email: 'new@x.io',
      ipv4: IP4,
      device: DEVICE,
      facts: { distinct_emails_in_ip: 5, distinct_emails_from_device: 5 },
      fires: ['ip_duplication'],
    },
    { name: 'no device: the device facts unknown', email: 'nodevice@x.io', ipv4: IP4, facts: nullDeviceFacts, fires: ['ip_duplication'] },
    { name: 'no IP: every fact unknown', email: 'new@x.io', facts: nullFacts, fires: [] },
    { name: 'empty IP strings: every fact unknown', email: 'new@x.io', ipv4: '', ipv6: '', facts: nullFacts, fires: [] },

    // ip_duplication's threshold and window, on the history above: 'new@x.io' on IP4 has 5 distinct
    // addresses in total, 3 in the last 5 minutes, 4 in the last 10; validations (not addresses) in the
    // last 2 hours are 5. Each row lists the facts the condition reads.
    {
      name: 'empty options: the defaults, threshold 3 over the total',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: {} },
      facts: { distinct_emails_in_ip: 5 },
      fires: ['ip_duplication'],
    },
    {
      name: 'threshold 5: five addresses in total reach it',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { threshold: 5 } },
      facts: { distinct_emails_in_ip: 5 },
      fires: ['ip_duplication'],
    },
    {
      name: 'threshold 6: five addresses in total do not',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { threshold: 6 } },
      facts: { distinct_emails_in_ip: 5 },
      fires: [],
    },
    {
      name: 'window 5_minutes: three addresses reach the default threshold 3',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { window: '5_minutes' } },
      facts: { distinct_emails_in_ip_last_5_minutes: 3 },
      fires: ['ip_duplication'],
    },
    {
      name: 'window 5_minutes, threshold 4: three addresses do not',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { window: '5_minutes', threshold: 4 } },
      facts: { distinct_emails_in_ip_last_5_minutes: 3 },
      fires: [],
    },
    {
      name: 'window 10_minutes, threshold 4: four addresses reach it',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { window: '10_minutes', threshold: 4 } },
      facts: { distinct_emails_in_ip_last_10_minutes: 4 },
      fires: ['ip_duplication'],
    },
    {
      name: 'window 2_hour, threshold 5: 5 validations but only 4 distinct addresses',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { window: '2_hour', threshold: 5 } },
      facts: { emails_in_ip_last_2_hour: 5, distinct_emails_in_ip_last_2_hour: 4 },
      fires: [],
    },
    {
      name: 'window 3_hour, threshold 4: four addresses reach it',
      email: 'new@x.io',
      ipv4: IP4,
      options: { ip_duplication: { window: '3_hour', threshold: 4 } },
      facts: { distinct_emails_in_ip_last_3_hour: 4 },
      fires: ['ip_duplication'],
    },
    {
      name: 'threshold 2: a single address does not fire',
      email: 'solo@x.io',
      ipv4: '198.51.100.200',
      options: { ip_duplication: { threshold: 2 } },
      facts: { distinct_emails_in_ip: 1 },
      fires: [],
    },
    {
      name: 'threshold 2, window total: unknown facts (no IP) do not fire',
      email: 'new@x.io',
      options: { ip_duplication: { threshold: 2, window: 'total' } },
      facts: nullFacts,
      fires: [],
    },
    {
      name: 'threshold 2, window 5_minutes: unknown facts (no IP) do not fire',
      email: 'new@x.io',
      options: { ip_duplication: { threshold: 2, window: '5_minutes' } },
      facts: nullFacts,
      fires: [],
    },
    {
      name: 'threshold 2, window 3_hour: unknown facts (no IP) do not fire',
      email: 'new@x.io',
      options: { ip_duplication: { threshold: 2, window: '3_hour' } },
      facts: nullFacts,
      fires: [],
    },
  ],
  { velocity: reader('prj_a'), now },
);

describe('another project sees none of this project’s history', () => {
  testPlugin(
    velocity,
    [
      {
        name: 'prj_b: its own one address from the IP, and this request',
        email: 'new@x.io',
        ipv4: IP4,
        facts: {
          distinct_emails_in_ip: 2,
          total_email_in_ip: 2,
          emails_in_ip: [{ email_address: 'new@x.io', created_time: createdTime(NOW) }, entry('zed@x.io', MIN)],
        },
        fires: [],
      },
    ],
    { velocity: reader('prj_b'), now },
  );
  testPlugin(
    velocity,
    [
      {
        name: 'prj_c: only this request',
        email: 'new@x.io',
        ipv4: IP4,
        device: DEVICE,
        facts: { has_multiple_emails_in_ip: false, distinct_emails_in_ip: 1, total_email_in_ip: 1, distinct_emails_from_device: 1 },
        fires: [],
      },
    ],
    { velocity: reader('prj_c'), now },
  );
});

describe('velocity plugin against the store', () => {
  it('renders created_time as ISO 8601 with a +00:00 offset', () => {
    expect(createdTime(NOW)).toBe('2026-11-22T03:09:01.123+00:00');
    expect(createdTime(0)).toBe('1970-01-01T00:00:00.000+00:00');
  });

  it.each([
    ['the last millisecond of a day', Date.UTC(2026, 10, 22, 23, 59, 59, 999), '2026-11-22T23:59:59.999+00:00'],
    ['the first of the next', Date.UTC(2026, 10, 23), '2026-11-23T00:00:00.000+00:00'],
    ['a leap day', Date.UTC(2028, 1, 29, 12, 0, 0, 7), '2028-02-29T12:00:00.007+00:00'],
    ['before 1970', Date.UTC(1969, 11, 31, 23, 59, 59, 1), '1969-12-31T23:59:59.001+00:00'],
    ['the last four-digit year', Date.UTC(9999, 11, 31, 23, 59, 59, 999), '9999-12-31T23:59:59.999+00:00'],
    ['a five-digit year (the long form)', Date.UTC(10000, 0, 1), '+010000-01-01T00:00:00.000+00:00'],
  ])('renders %s as Date#toISOString does', (_name, ms, text) => {
    expect(createdTime(ms)).toBe(text);
  });

  it('agrees with Date#toISOString on times spread over a century', () => {
    for (let ms = Date.UTC(1950, 0, 1); ms < Date.UTC(2050, 0, 1); ms += 320_001_237) {
      expect(createdTime(ms)).toBe(`${new Date(ms).toISOString().slice(0, -1)}+00:00`);
    }
  });

  it("sets the request's own address apart from the store's answer: listed once, first, and counted once", async () => {
    // The store's answer: the newest addresses, newest first, the request's own (in another case) among them.
    const emails = Array.from({ length: 30 }, (_, i) => ({ email: i === 3 ? 'A@x.io' : `other${i}@x.io`, at: NOW - (i + 1) * MIN }));
    const history = (since: number[]): Velocity => ({ emails, distinctEmails: 30, total: 40, since: since.map(() => 7) });
    const answer: VelocityReader = {
      byIp: async (q) => history(q.since),
      byDevice: async (q) => history(q.since),
      spread: async () => ({ seen: [], distinct: 0, total: 0 }),
      tokenUses: async () => [],
    };
    const facts = (await velocity.run({
      input: { email: 'a@x.io', ipv4: IP4, ipv6: null, device: DEVICE },
      velocity: answer,
      now,
      options: (check: string) => velocity.checks[check]?.defaults ?? {},
    } as unknown as PluginContext)) as FactValues;
    const listed = (facts.emails_in_ip as Array<{ email_address: string }>).map((e) => e.email_address);
    expect(listed).toEqual([
      'a@x.io',
      ...emails
        .filter((_, i) => i !== 3)
        .slice(0, 19)
        .map((e) => e.email),
    ]);
    expect(facts.distinct_emails_in_ip).toBe(30); // seen before: not one more
    expect(facts.total_email_in_ip).toBe(41);
    // The other addresses last seen within 5 minutes (other0, other1, other2, other4: 1-5 minutes ago), and this one.
    expect(facts.distinct_emails_in_ip_last_5_minutes).toBe(5);
    expect(facts.emails_in_ip_last_5_minutes).toBe(8);
    expect(facts.distinct_emails_from_device).toBe(30);
    expect(facts.distinct_emails_from_device_last_1_day).toBe(30);
  });

  it('makes no guess when history fails (the store bounds its reads): the error is reported, the facts are unknown', async () => {
    const fail = () => Promise.reject(new Error('Defined query timeout of 2000ms exceeded'));
    const failing: VelocityReader = { byIp: fail, byDevice: fail, spread: fail, tokenUses: fail };
    await expect(computeFacts(velocity, { email: 'a@x.io', ipv4: IP4 }, { velocity: failing, now })).rejects.toThrow(/query timeout/);
  });
});

describe('check ip_duplication', () => {
  it('declares its code, checked type, step and defaults', () => {
    expect(velocity.steps).toEqual(['ip_duplication']);
    expect(velocity.checks.ip_duplication).toMatchObject({
      code: 'multiple_accounts_detected',
      checkedType: 'multiple_emails_in_ip',
      defaults: { threshold: 3, window: 'total' },
    });
    expect(velocity.io).toBe(true);
    expect(velocity.needs).toEqual([]);
  });

  it('exposes the spec’s velocity fields and the flag, nothing else', () => {
    const exposed = Object.fromEntries(Object.entries(velocity.facts).flatMap(([name, spec]) => (spec.expose ? [[name, spec.expose]] : [])));
    expect(exposed).toEqual({
      has_multiple_emails_in_ip: 'flag',
      emails_in_ip: 'analyzed_data',
      total_email_in_ip: 'analyzed_data',
      emails_in_ip_last_5_minutes: 'analyzed_data',
      emails_in_ip_last_10_minutes: 'analyzed_data',
      emails_in_ip_last_15_minutes: 'analyzed_data',
      emails_in_ip_last_30_minutes: 'analyzed_data',
      emails_in_ip_last_2_hour: 'analyzed_data',
      emails_in_ip_last_3_hour: 'analyzed_data',
    });
  });

  it('validates its options', () => {
    const schema = velocity.checks.ip_duplication?.options;
    const validate = new Ajv.default({ strict: true }).compile(schema ?? {});
    expect(validate({ threshold: 3, window: 'total' })).toBe(true);
    expect(validate({ threshold: 100, window: '3_hour' })).toBe(true);
    for (const bad of [{ threshold: 1 }, { threshold: 101 }, { threshold: 2.5 }, { window: '1_day' }, { extra: true }]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
