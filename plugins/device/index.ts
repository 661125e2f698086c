// Device signals from the request's fingerprint token: how old the token is, whether it is being replayed
// (one token presented from several IPs or for several addresses), whether the browser that obtained it
// was driven by a program or disagrees with itself (a time zone impossible for the IP's country,
// languages absent or contradictory), and whether its device hops between networks. Every fact is null
// without a fingerprint; history comes from ctx.velocity (bounded reads), the rest from the token.
import type { CheckOptions, Condition, FactSpec, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { dataLists } from '../plugin-data.js';
import { DEVICE_WINDOWS, type DeviceWindowName } from '../velocity-windows.js';
import { type DeviceSignal, deviceFacts, ipsFact, networksFact, type Thresholds } from './signals.js';

/**
 * A device's IPs and networks read per request, newest first: the counts per window are exact up to this
 * many, far above what a person's devices reach in a day.
 */
const SCAN_LIMIT = 20;
/** A token's earlier uses read at most: its uses, addresses and IPs are exact up to this many (a token lives a day). */
const TOKEN_USES_LIMIT = 20;

const windowFacts: Record<string, FactSpec> = {};
for (const w of DEVICE_WINDOWS) {
  const span = w.name.replace('_', ' ');
  windowFacts[ipsFact(w.name)] = {
    type: 'integer',
    description: `Distinct IPs this device came from in the last ${span}, this request's included (exact up to ${SCAN_LIMIT}); null without a device or an IP.`,
  };
  windowFacts[networksFact(w.name)] = {
    type: 'integer',
    description: `Distinct networks (IPv4 /24, IPv6 /64) this device came from in the last ${span}, this request's included; null without a device or an IP.`,
  };
}

/** The signals device_risk_signals lists, by the check that decides each (risk weighs them by these names). */
const SIGNAL_VALUES: readonly DeviceSignal[] = ['automation', 'timezone_mismatch', 'language_mismatch', 'token_replay', 'stale_token', 'ip_hopping'];

const facts: Record<string, FactSpec> = {
  fingerprint_age_seconds: {
    type: 'integer',
    description: 'Seconds since the fingerprint token was issued (POST /v1/fingerprint); null without a fingerprint.',
    expose: 'analyzed_data',
  },
  fingerprint_token_uses: {
    type: 'integer',
    description: `Validations (verify and intelligence) that presented this token, this one included (exact up to ${TOKEN_USES_LIMIT + 1}: past that, ${TOKEN_USES_LIMIT + 1}); null without a fingerprint.`,
    expose: 'analyzed_data',
  },
  fingerprint_token_emails: {
    type: 'integer',
    description: `Distinct addresses validated with this token, this one included (among its last ${TOKEN_USES_LIMIT} uses); null without a fingerprint.`,
  },
  fingerprint_token_ips: {
    type: 'integer',
    description: `Distinct IPs this token was obtained (from a public address) or presented from, this request included, among its last ${TOKEN_USES_LIMIT} uses: IPv6 by /64, and IPv4 and IPv6 counted apart (the larger count), so a dual-stack browser is one; null without a fingerprint.`,
    expose: 'analyzed_data',
  },
  fingerprint_is_replayed: {
    type: 'boolean',
    description: 'The fingerprint_replay check holds: the token came from more than `max_ips` IPs or with more than `max_emails` addresses.',
  },
  fingerprint_is_stale: {
    type: 'boolean',
    description: 'The fingerprint_age check holds: the token is older than `max_age_seconds` (default 3600).',
  },
  device_timezone: {
    type: 'string',
    description: "The browser's IANA time zone as its script reported it; null without a fingerprint or when it sent none.",
    expose: 'analyzed_data',
  },
  device_ip_country_mismatch: {
    type: 'boolean',
    description:
      "The browser's time zone is used in none of the countries it is tied to (tz database) and the IP's country (ip-network's ip_country) is not one of them; null when either is unknown or the zone belongs to no country (UTC, Etc/GMT+3).",
    expose: 'analyzed_data',
  },
  device_automation_traits: {
    type: 'array',
    description:
      'What POST /v1/fingerprint saw that suggests automation: `webdriver` (navigator.webdriver), `headless_user_agent`, `platform_mismatch` (the User-Agent names another system than navigator.platform); [] none; null without a fingerprint.',
  },
  device_is_automated: {
    type: 'boolean',
    description: 'device_automation_traits is not empty: the browser that obtained the token was driven by a program.',
    expose: 'analyzed_data',
  },
  device_language_traits: {
    type: 'array',
    description:
      "What POST /v1/fingerprint saw of the browser's languages: `no_languages` (navigator.languages empty), `languages_mismatch` (Accept-Language's first language is not navigator.languages' first); [] none; null without a fingerprint.",
  },
  device_languages_inconsistent: {
    type: 'boolean',
    description: 'device_language_traits is not empty.',
  },
  distinct_ips_from_device: {
    type: 'integer',
    description: `Distinct IPs this device came from across the project, this request's included (exact up to ${SCAN_LIMIT}); null without a device or an IP.`,
  },
  distinct_networks_from_device: {
    type: 'integer',
    description: "Distinct networks (IPv4 /24, IPv6 /64) this device came from across the project, this request's included; null without a device or an IP.",
    expose: 'analyzed_data',
  },
  ...windowFacts,
  device_is_ip_hopping: {
    type: 'boolean',
    description: 'The device_ip_hopping check holds: the device came from at least `threshold` networks (default 3) within `window` (default 1_day).',
  },
  device_risk_signals: {
    type: 'array',
    description: `The device signals that hold, in this order: ${SIGNAL_VALUES.map((s) => `\`${s}\``).join(', ')} (each its check's condition, with the policy's options); [] none; null without a fingerprint.`,
    expose: 'analyzed_data',
  },
};

/** Every fact null: a request without a fingerprint, and the template each request's facts are copied from. */
const NO_FACTS: Readonly<FactValues> = Object.fromEntries(Object.keys(facts).map((name) => [name, null]));

const DEFAULTS = {
  fingerprint_replay: { max_ips: 1, max_emails: 2 },
  fingerprint_age: { max_age_seconds: 3_600 },
  device_ip_hopping: { threshold: 3, window: '1_day' },
} as const;

const integer = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum });
const number = (options: CheckOptions, key: string, fallback: number) => (typeof options[key] === 'number' ? (options[key] as number) : fallback);

/** The thresholds of the three checks with options, from the policy's options over the defaults. */
function thresholdsOf(ctx: PluginContext): Thresholds {
  const replay = ctx.options('fingerprint_replay');
  const age = ctx.options('fingerprint_age');
  const hopping = ctx.options('device_ip_hopping');
  const window = DEVICE_WINDOWS.find((w) => w.name === hopping.window)?.name ?? DEFAULTS.device_ip_hopping.window;
  return {
    maxIps: number(replay, 'max_ips', DEFAULTS.fingerprint_replay.max_ips),
    maxEmails: number(replay, 'max_emails', DEFAULTS.fingerprint_replay.max_emails),
    maxAgeSeconds: number(age, 'max_age_seconds', DEFAULTS.fingerprint_age.max_age_seconds),
    hopping: { threshold: number(hopping, 'threshold', DEFAULTS.device_ip_hopping.threshold), window: window as DeviceWindowName },
  };
}

const holds = (fact: string): Condition => ({ fact, operator: 'equal', value: true });

const plugin: Plugin = {
  id: 'device',
  description:
    "Reads the request's fingerprint token: its age, its replay from other IPs or for other addresses, the automation and inconsistencies seen of the browser that obtained it, and the networks its device hops between.",
  steps: ['device_automation', 'device_inconsistency', 'fingerprint_replay', 'fingerprint_age', 'device_ip_hopping'],
  codes: {
    device_automation_detected: { warning: 'the browser that obtained the fingerprint was driven by a program' },
    device_inconsistent: { warning: "the browser's time zone or languages contradict its IP or themselves" },
    fingerprint_replayed: { warning: 'one fingerprint token presented from several IPs or for several addresses' },
    fingerprint_stale: { warning: 'the fingerprint token was issued long before it was presented' },
    device_ip_hopping_detected: { warning: 'the device came from several networks in a short time' },
  },
  facts,
  checks: {
    device_automation: {
      description: 'The browser that obtained the fingerprint token showed automation (`device_is_automated`).',
      when: holds('device_is_automated'),
      code: 'device_automation_detected',
    },
    device_inconsistency: {
      description: "The browser's time zone is impossible for the IP's country, or its languages are absent or contradictory.",
      when: { any: [holds('device_ip_country_mismatch'), holds('device_languages_inconsistent')] },
      code: 'device_inconsistent',
    },
    fingerprint_replay: {
      description: 'The token came from more than `max_ips` IPs (default 1) or with more than `max_emails` addresses (default 2).',
      when: holds('fingerprint_is_replayed'),
      code: 'fingerprint_replayed',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: { max_ips: integer(1, TOKEN_USES_LIMIT - 1), max_emails: integer(1, TOKEN_USES_LIMIT - 1) },
      },
      defaults: { ...DEFAULTS.fingerprint_replay },
    },
    fingerprint_age: {
      description: 'The token is older than `max_age_seconds` (default 3600).',
      when: holds('fingerprint_is_stale'),
      code: 'fingerprint_stale',
      options: { type: 'object', additionalProperties: false, properties: { max_age_seconds: integer(1, 31_536_000) } },
      defaults: { ...DEFAULTS.fingerprint_age },
    },
    device_ip_hopping: {
      description: 'The device came from at least `threshold` networks (IPv4 /24, IPv6 /64; default 3), this one included, within `window` (default 1_day).',
      when: holds('device_is_ip_hopping'),
      code: 'device_ip_hopping_detected',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: { threshold: integer(2, SCAN_LIMIT), window: { enum: DEVICE_WINDOWS.map((w) => w.name) } },
      },
      defaults: { ...DEFAULTS.device_ip_hopping },
    },
  },
  needs: ['ip-network'],
  io: true,
  // Not counted: listing the package's zones (getAllTimezones) builds all of them, 5 MB of RSS kept for a number.
  data: dataLists('device', [{ file: 'timezone-countries', entries: null }]),
  async run(ctx): Promise<FactValues> {
    const { fingerprint, device, email, ipv4, ipv6 } = ctx.input;
    const values: FactValues = { ...NO_FACTS };
    if (!fingerprint) return values;
    const now = ctx.now();
    const thresholds = thresholdsOf(ctx);
    const ips = [ipv4, ipv6].filter((ip): ip is string => typeof ip === 'string' && ip !== '');
    // The store bounds each read; one that fails makes every fact of the plugin unknown (the runner reports it).
    const [uses, deviceIps, deviceNetworks, country] = await Promise.all([
      ctx.velocity.tokenUses({ token: fingerprint.token, limit: TOKEN_USES_LIMIT }),
      device && ips.length > 0 ? ctx.velocity.spread({ kind: 'device_ip', subject: device, limit: SCAN_LIMIT }) : null,
      device && ips.length > 0 ? ctx.velocity.spread({ kind: 'device_network', subject: device, limit: SCAN_LIMIT }) : null,
      // Only a time zone needs the IP's country (ip-network loads its tables at its first lookup).
      fingerprint.timezone !== null && ips.length > 0 ? ctx.fact<string>('ip_country') : null,
    ]);
    return deviceFacts(values, { fingerprint, email, ips, now, uses, deviceIps, deviceNetworks, country, thresholds });
  },
};

export default plugin;
