// The device plugin's facts for one request, from its fingerprint token, the token's last uses and the
// device's spread (the store's bounded reads) and the IP's country. Pure: no I/O, no clock of its own.
import { getTimezone } from 'countries-and-timezones';
import type { FactValues, FingerprintInput, Spread, TokenUse } from '../../src/engine/plugin.js';
import { isPublicUnicast, networkPrefix, replayAddress } from '../../src/ip-prefix.js';
import { DEVICE_WINDOWS, type DeviceWindowName } from '../velocity-windows.js';

/** A signal of device_risk_signals; risk weighs each by its name (plugins/risk). */
export type DeviceSignal = 'automation' | 'timezone_mismatch' | 'language_mismatch' | 'token_replay' | 'stale_token' | 'ip_hopping';

export interface Thresholds {
  maxIps: number;
  maxEmails: number;
  maxAgeSeconds: number;
  hopping: { threshold: number; window: DeviceWindowName };
}

export const ipsFact = (w: DeviceWindowName) => `distinct_ips_from_device_last_${w}`;
export const networksFact = (w: DeviceWindowName) => `distinct_networks_from_device_last_${w}`;
const IPS_FACTS = DEVICE_WINDOWS.map((w) => ipsFact(w.name));
const NETWORKS_FACTS = DEVICE_WINDOWS.map((w) => networksFact(w.name));

export interface Reads {
  fingerprint: FingerprintInput;
  /** The request's address as passed. */
  email: string;
  /** The request's IPs (verify's ipv4_address/ipv6_address; intelligence's are the token's). */
  ips: readonly string[];
  now: number;
  /** The token's earlier uses, newest first (capped). */
  uses: readonly TokenUse[];
  /** The device's IPs and networks; null without a device or an IP. */
  deviceIps: Spread | null;
  deviceNetworks: Spread | null;
  /** ip-network's ip_country of the request's IP; null when unknown or not read (no time zone). */
  country: string | null;
  thresholds: Thresholds;
}

/**
 * Distinct values of a spread with the request's own added, in total and since each start: exact while
 * the spread read holds every value (up to its limit), never fewer than the store's distinct count.
 */
function withCurrent(spread: Spread, current: readonly string[], starts: readonly number[]): { total: number; since: number[] } {
  const own = new Set(current);
  let others = 0;
  let ownSeen = 0;
  const since = starts.map(() => own.size);
  for (const { value, at } of spread.seen) {
    if (own.has(value)) {
      ownSeen += 1;
      continue;
    }
    others += 1;
    for (let i = 0; i < starts.length; i++) if (at >= (starts[i] as number)) since[i] = (since[i] as number) + 1;
  }
  return { total: Math.max(spread.distinct + own.size - ownSeen, others + own.size), since };
}

/** IPv4 and IPv6 counted apart, the larger count: a browser reaching the service over both is one. */
function distinctIps(ips: Iterable<string>): number {
  const v4 = new Set<string>();
  const v6 = new Set<string>();
  for (const ip of ips) {
    const value = replayAddress(ip);
    if (value !== null) (value.includes(':') ? v6 : v4).add(value);
  }
  return Math.max(v4.size, v6.size);
}

/** The countries a time zone is used in (the tz database's, aliases included); empty for a zone of no country or one not known. */
function countriesOf(timezone: string): readonly string[] {
  return getTimezone(timezone)?.countries ?? [];
}

const present = (values: Array<string | null>): string[] => values.filter((v): v is string => v !== null);

/** Every fact of the plugin for a request with a fingerprint, written into `values`. */
export function deviceFacts(values: FactValues, r: Reads): FactValues {
  const { fingerprint: token, thresholds: t } = r;
  const age = Math.max(0, Math.floor((r.now - token.issuedAt) / 1000));
  const emails = new Set([r.email.toLowerCase(), ...r.uses.map((u) => u.email)]).size;
  // Where the token was obtained counts when it is a public address: a private or loopback one is a proxy
  // the service does not trust (TRUST_PROXY unset), the same for every browser, not the browser's own.
  const issuedFrom = [token.ipv4, token.ipv6].filter((ip): ip is string => typeof ip === 'string' && isPublicUnicast(ip));
  const usedFrom = r.uses.flatMap((u) => present([u.ipv4, u.ipv6]));
  const ips = distinctIps([...r.ips, ...issuedFrom, ...usedFrom]);
  values.fingerprint_age_seconds = age;
  values.fingerprint_token_uses = r.uses.length + 1;
  values.fingerprint_token_emails = emails;
  values.fingerprint_token_ips = ips;
  values.fingerprint_is_replayed = ips > t.maxIps || emails > t.maxEmails;
  values.fingerprint_is_stale = age > t.maxAgeSeconds;

  values.device_timezone = token.timezone;
  const countries = token.timezone === null ? [] : countriesOf(token.timezone);
  values.device_ip_country_mismatch = countries.length === 0 || r.country === null ? null : !countries.includes(r.country);
  values.device_automation_traits = [...token.automation];
  values.device_is_automated = token.automation.length > 0;
  values.device_language_traits = [...token.languages];
  values.device_languages_inconsistent = token.languages.length > 0;

  if (r.deviceIps && r.deviceNetworks) {
    const starts = DEVICE_WINDOWS.map((w) => r.now - w.ms);
    const deviceIps = withCurrent(r.deviceIps, r.ips, starts);
    const deviceNetworks = withCurrent(r.deviceNetworks, present(r.ips.map(networkPrefix)), starts);
    values.distinct_ips_from_device = deviceIps.total;
    values.distinct_networks_from_device = deviceNetworks.total;
    for (let i = 0; i < DEVICE_WINDOWS.length; i++) {
      values[IPS_FACTS[i] as string] = deviceIps.since[i];
      values[NETWORKS_FACTS[i] as string] = deviceNetworks.since[i];
    }
    const window = DEVICE_WINDOWS.findIndex((w) => w.name === t.hopping.window);
    values.device_is_ip_hopping = (deviceNetworks.since[window] ?? 0) >= t.hopping.threshold;
  }

  const signals: DeviceSignal[] = [];
  if (values.device_is_automated === true) signals.push('automation');
  if (values.device_ip_country_mismatch === true) signals.push('timezone_mismatch');
  if (values.device_languages_inconsistent === true) signals.push('language_mismatch');
  if (values.fingerprint_is_replayed === true) signals.push('token_replay');
  if (values.fingerprint_is_stale === true) signals.push('stale_token');
  if (values.device_is_ip_hopping === true) signals.push('ip_hopping');
  // Issue 50's feedback adds the device's reputation here: a `reported` signal from its labels.
  values.device_risk_signals = signals;
  return values;
}
