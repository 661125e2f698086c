import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FingerprintInput, VelocityReader } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import type { NewEvent } from '../../src/store/events.js';
import { openSqliteTestStore } from '../../test/support/databases.js';
import { pastEvent, readerOf } from '../../test/support/history.js';
import { computeFacts, testPlugin } from '../../test/support/plugin-tester.js';
import device from './index.js';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const now = () => NOW;

/** A British residential ISP's addresses (Andrews & Arnold, AS20712: ip_country GB, not hosting). */
const GB_IP = '81.2.69.142';
const GB_IP_SAME_NETWORK = '81.2.69.160';

let store: Store;

const reader: VelocityReader = readerOf(() => store, 'prj_dev');

/** A token as the service opens it: issued a minute ago to GB_IP, by a browser in London with nothing odd. */
function token(overrides: Partial<FingerprintInput> = {}): FingerprintInput {
  return {
    token: 'tok_fresh',
    issuedAt: NOW - MIN,
    ipv4: GB_IP,
    ipv6: null,
    timezone: 'Europe/London',
    automation: [],
    languages: [],
    ...overrides,
  };
}

const used = (email: string, ago: number, at: { token?: string; device?: string; ipv4?: string; ipv6?: string; project?: string }): NewEvent =>
  pastEvent(at.project ?? 'prj_dev', email, NOW - ago, {
    ...(at.token ? { fingerprintToken: at.token } : {}),
    ...(at.device ? { device: at.device } : {}),
    ...(at.ipv4 ? { ipv4: at.ipv4 } : {}),
    ...(at.ipv6 ? { ipv6: at.ipv6 } : {}),
  });

beforeAll(async () => {
  store = await openSqliteTestStore();
  await Promise.all(
    [
      // tok_replayed: presented three times before, from two IPs, for two addresses.
      used('ann@example.org', 10 * MIN, { token: 'tok_replayed', ipv4: GB_IP }),
      used('ann@example.org', 9 * MIN, { token: 'tok_replayed', ipv4: '198.51.100.20' }),
      used('bo@example.org', 8 * MIN, { token: 'tok_replayed', ipv4: '198.51.100.20' }),
      // tok_v6: presented from three privacy addresses of one /64: one IP as replay counts.
      used('cy@example.org', 5 * MIN, { token: 'tok_v6', ipv6: '2001:db8:5:6::1' }),
      used('cy@example.org', 4 * MIN, { token: 'tok_v6', ipv6: '2001:db8:5:6::2' }),
      // dev_hop: one device from four networks within two hours, a fifth two days ago.
      used('dee@example.org', 2 * 24 * HOUR, { device: 'dev_hop', ipv4: '203.0.113.9' }),
      used('dee@example.org', 2 * HOUR, { device: 'dev_hop', ipv4: '192.0.2.1' }),
      used('dee@example.org', 90 * MIN, { device: 'dev_hop', ipv4: '192.0.2.77' }), // the same /24
      used('dee@example.org', 40 * MIN, { device: 'dev_hop', ipv4: '198.51.100.3' }),
      used('dee@example.org', 3 * MIN, { device: 'dev_hop', ipv6: '2001:db8:1::9' }),
      // Another project's uses of tok_fresh and dev_hop are never seen.
      used('zed@example.org', MIN, { token: 'tok_fresh', ipv4: '198.51.100.99', project: 'prj_other' }),
      used('zed@example.org', MIN, { device: 'dev_hop', ipv4: '198.51.100.99', project: 'prj_other' }),
    ].map((e) => store.events.record(e)),
  );
});
afterAll(() => store.close());

const NULL_FACTS = Object.fromEntries(Object.keys(device.facts).map((name) => [name, null]));

testPlugin(
  device,
  [
    {
      name: 'no fingerprint: every fact unknown',
      email: 'a@example.org',
      ipv4: GB_IP,
      facts: NULL_FACTS,
      fires: [],
    },
    {
      name: "a fresh token's first use, from the IP that obtained it, by a browser in its IP's country: no signal",
      email: 'a@example.org',
      ipv4: GB_IP,
      fingerprint: token(),
      facts: {
        fingerprint_age_seconds: 60,
        fingerprint_token_uses: 1,
        fingerprint_token_emails: 1,
        fingerprint_token_ips: 1,
        fingerprint_is_replayed: false,
        fingerprint_is_stale: false,
        device_timezone: 'Europe/London',
        device_ip_country_mismatch: false,
        device_automation_traits: [],
        device_is_automated: false,
        device_language_traits: [],
        device_languages_inconsistent: false,
        // No device hash: no IP hopping to count.
        distinct_networks_from_device: null,
        device_is_ip_hopping: null,
        device_risk_signals: [],
      },
      fires: [],
    },
    {
      name: 'a browser driven by WebDriver, headless: automation',
      email: 'b@example.org',
      ipv4: GB_IP,
      fingerprint: token({ automation: ['webdriver', 'headless_user_agent'] }),
      facts: { device_automation_traits: ['webdriver', 'headless_user_agent'], device_is_automated: true, device_risk_signals: ['automation'] },
      fires: ['device_automation'],
    },
    {
      name: "a Tokyo time zone behind a British IP: impossible for the IP's country",
      email: 'c@example.org',
      ipv4: GB_IP,
      fingerprint: token({ timezone: 'Asia/Tokyo' }),
      facts: { device_timezone: 'Asia/Tokyo', device_ip_country_mismatch: true, device_risk_signals: ['timezone_mismatch'] },
      fires: ['device_inconsistency'],
    },
    {
      name: 'a zone of no country (UTC) contradicts no IP',
      email: 'c2@example.org',
      ipv4: GB_IP,
      fingerprint: token({ timezone: 'UTC' }),
      facts: { device_ip_country_mismatch: null, device_risk_signals: [] },
      fires: [],
    },
    {
      name: 'a time zone behind an IP of unknown country (a documentation block) is not judged',
      email: 'c3@example.org',
      ipv4: '192.0.2.44',
      fingerprint: token({ timezone: 'Asia/Tokyo', ipv4: '192.0.2.44' }),
      facts: { device_ip_country_mismatch: null },
      fires: [],
    },
    {
      name: 'no languages at all: inconsistent',
      email: 'd@example.org',
      ipv4: GB_IP,
      fingerprint: token({ languages: ['no_languages'] }),
      facts: { device_language_traits: ['no_languages'], device_languages_inconsistent: true, device_risk_signals: ['language_mismatch'] },
      fires: ['device_inconsistency'],
    },
    {
      name: 'a token presented before from two IPs and for two addresses, now from a third IP for a third address: replayed',
      email: 'cat@example.org',
      ipv4: '198.51.100.21',
      fingerprint: token({ token: 'tok_replayed', issuedAt: NOW - 20 * MIN }),
      facts: {
        fingerprint_token_uses: 4,
        fingerprint_token_emails: 3,
        fingerprint_token_ips: 3,
        fingerprint_is_replayed: true,
        // 198.51.100.0/24 is a documentation block: no country, so the time zone is not judged.
        device_ip_country_mismatch: null,
        device_risk_signals: ['token_replay'],
      },
      fires: ['fingerprint_replay'],
    },
    {
      name: 'the same token within its limits once the options allow three IPs and three addresses',
      email: 'cat@example.org',
      ipv4: '198.51.100.21',
      fingerprint: token({ token: 'tok_replayed', issuedAt: NOW - 20 * MIN }),
      options: { fingerprint_replay: { max_ips: 3, max_emails: 3 } },
      facts: { fingerprint_token_ips: 3, fingerprint_is_replayed: false, device_risk_signals: [] },
      fires: [],
    },
    {
      name: "a token's second use from its own IP, for an address used with it before: not replayed",
      email: 'Ann@example.org',
      ipv4: GB_IP,
      fingerprint: token({ token: 'tok_replayed', ipv4: '198.51.100.20' }),
      options: { fingerprint_replay: { max_ips: 2, max_emails: 2 } },
      facts: { fingerprint_token_uses: 4, fingerprint_token_emails: 2, fingerprint_token_ips: 2, fingerprint_is_replayed: false },
      fires: [],
    },
    {
      name: "IPv6 privacy addresses of one /64 are one IP, and a dual-stack browser's IPv4 is not a second",
      email: 'cy@example.org',
      ipv4: GB_IP,
      ipv6: '2001:db8:5:6::3',
      fingerprint: token({ token: 'tok_v6', ipv4: null, ipv6: '2001:db8:5:6::4' }),
      facts: { fingerprint_token_uses: 3, fingerprint_token_ips: 1, fingerprint_is_replayed: false },
      fires: [],
    },
    {
      name: 'a token obtained through a proxy the service does not trust (a private address): only public IPs count',
      email: 'a2@example.org',
      ipv4: GB_IP,
      fingerprint: token({ token: 'tok_proxied', ipv4: '10.1.2.3' }),
      facts: { fingerprint_token_ips: 1, fingerprint_is_replayed: false },
      fires: [],
    },
    {
      name: 'a token presented two hours after it was issued: stale (default an hour)',
      email: 'e@example.org',
      ipv4: GB_IP,
      fingerprint: token({ issuedAt: NOW - 2 * HOUR }),
      facts: { fingerprint_age_seconds: 7200, fingerprint_is_stale: true, device_risk_signals: ['stale_token'] },
      fires: ['fingerprint_age'],
    },
    {
      name: 'two hours is not stale under max_age_seconds 7200',
      email: 'e@example.org',
      ipv4: GB_IP,
      fingerprint: token({ issuedAt: NOW - 2 * HOUR }),
      options: { fingerprint_age: { max_age_seconds: 7200 } },
      facts: { fingerprint_is_stale: false },
      fires: [],
    },
    {
      name: 'a device from a fifth network within a day: IP hopping',
      email: 'dee@example.org',
      ipv4: GB_IP,
      device: 'dev_hop',
      fingerprint: token(),
      facts: {
        distinct_ips_from_device: 6,
        distinct_networks_from_device: 5,
        distinct_ips_from_device_last_5_minutes: 2,
        distinct_networks_from_device_last_5_minutes: 2,
        distinct_networks_from_device_last_2_hour: 4,
        distinct_ips_from_device_last_2_hour: 5,
        distinct_networks_from_device_last_1_day: 4,
        device_is_ip_hopping: true,
        device_risk_signals: ['ip_hopping'],
      },
      fires: ['device_ip_hopping'],
    },
    {
      name: 'the same device under a threshold of five networks in a day: not hopping',
      email: 'dee@example.org',
      ipv4: GB_IP,
      device: 'dev_hop',
      fingerprint: token(),
      options: { device_ip_hopping: { threshold: 5, window: '1_day' } },
      facts: { distinct_networks_from_device_last_1_day: 4, device_is_ip_hopping: false },
      fires: [],
    },
    {
      name: "a new device's first request from a network: one IP, one network",
      email: 'f@example.org',
      ipv4: GB_IP_SAME_NETWORK,
      device: 'dev_new',
      fingerprint: token({ ipv4: GB_IP_SAME_NETWORK }),
      facts: { distinct_ips_from_device: 1, distinct_networks_from_device: 1, distinct_ips_from_device_last_1_day: 1, device_is_ip_hopping: false },
      fires: [],
    },
  ],
  { velocity: reader, now },
);

describe('plugin device: reads', () => {
  it('loads no IP country for a token without a time zone (ip-network is not run)', async () => {
    const facts = await computeFacts(device, { email: 'g@example.org', ipv4: GB_IP, fingerprint: token({ timezone: null }) }, { velocity: reader, now });
    expect(facts.device_timezone).toBeNull();
    expect(facts.device_ip_country_mismatch).toBeNull();
  });

  it('makes no guess when a read fails: the error is reported, every fact unknown', async () => {
    const fail = () => Promise.reject(new Error('Defined query timeout of 2000ms exceeded'));
    const failing: VelocityReader = { byIp: fail, byDevice: fail, spread: fail, tokenUses: fail };
    await expect(computeFacts(device, { email: 'g@example.org', ipv4: GB_IP, fingerprint: token() }, { velocity: failing, now })).rejects.toThrow(
      /query timeout/,
    );
  });
});
