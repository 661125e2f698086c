// What the spec (/work/shared/spec/interface.md) fixes, as data the HTTP tests assert against.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ACTIONS = ['allow', 'allow_with_verification', 'allow_with_review', 'warn', 'challenge', 'soft_block', 'quarantine', 'block', 'none'];

export const STEP_IDS = new Set(
  `structure local_plus local_dot local_hyphen local_underscore local_numeric local_quoted local_special_chars local_empty
  subdomain_wildcard subdomain_single subdomain_double subdomain_triple subdomain_deeply_nested subdomain_hyphenated
  subdomain_numeric subdomain_uuid_hash uuid_subdomain random_subdomain deep_nesting domain_ipv4 domain_ipv6 ip_provider
  domain_single_label domain_numeric_only internationalized_email punycode_email mixed_script_email catch_all_wildcard
  local_part_max_length domain_max_length total_address_length label_max_length tld free_provider_domain role_based_address
  disposable_domain known_abuse_domain spam_trap_domain education_domain government_domain specific_domains mx_record
  fallback_a_record typo_detection fraud_pattern_detection domain_age deliverability_score domain_health risk_score vpn_ip
  ip_duplication`.split(/\s+/),
);

export const CHECKED_TYPES = new Set(
  `address_format mx_record disposable_domain role_based_address free_provider_domain known_abuse_domain spam_trap_domain
  education_domain government_domain typo_detection fraud_pattern_detection risk_score multiple_emails_in_ip`.split(/\s+/),
);

export const VELOCITY_ANALYZED = [
  'emails_in_ip',
  'total_email_in_ip',
  'emails_in_ip_last_5_minutes',
  'emails_in_ip_last_10_minutes',
  'emails_in_ip_last_15_minutes',
  'emails_in_ip_last_30_minutes',
  'emails_in_ip_last_2_hour',
  'emails_in_ip_last_3_hour',
];

/** A date, a time and a numeric UTC offset, as emails_in_ip's created_time is documented. */
export const CREATED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

export function fixturePolicy(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/policies/${name}.yaml`, import.meta.url)), 'utf8');
}

/** The verify/ip error body: {code, error, id, status: false}. */
export function expectStatusError(reply: { status: number; body: unknown }, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ code: status, error: expect.any(String), id: expect.any(String), status: false });
  expectNoInternals(reply.body);
}

/** The intelligence/fingerprint error body: exactly {error, code}. */
export function expectPlainError(reply: { status: number; body: unknown }, status: number): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.any(String), code: status });
  expectNoInternals(reply.body);
}

/** No stack frame, source path or library name leaks into an error body. */
export function expectNoInternals(body: unknown): void {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat \S+ \(|\bat (file:|\/|node:)/);
  expect(text).not.toMatch(/\/(work|home|tmp|usr)\/|node_modules|\.[jt]s:\d+|[A-Za-z]:\\/);
  expect(text).not.toMatch(/knex|sqlite|SQLITE_|stack/i);
}
