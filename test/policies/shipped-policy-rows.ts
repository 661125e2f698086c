// Every shipped policy (policies/*.yaml) with the inputs that make each action-changing check and free rule
// fire: shared by the reasons walk (every such action names its code) and the verify/intelligence
// consistency walk. The rows are keyed by check or rule name, one table for all policies: a policy whose
// action-changing check or rule has no row here fails the reasons walk.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import type { RequestInput } from '../../src/engine/plugin.js';
import { policiesDir } from '../../src/paths.js';
import { type CompiledPolicy, compilePolicy } from '../../src/policy/compile.js';
import { checkPolicy } from '../../src/policy/load.js';
import type { DomainAnswers, HistoryEntry, TestFingerprint } from '../../src/policy/types.js';
import { fingerprintOfTest } from '../../src/service/policy-test-fixtures.js';

const catalog = new FactCatalog(registry);

/** The shipped policy, its known-abuse and spam-trap checks given a domain each (the shipped lists are empty). */
function withListedDomains(file: string): CompiledPolicy {
  const checked = checkPolicy({ name: file.replace(/\.yaml$/, ''), file, text: readFileSync(join(policiesDir, file), 'utf8') }, catalog);
  const checks = checked.document.checks ?? {};
  const additions: Record<string, string> = { known_abuse_domain: 'abuse.example', spam_trap_domain: 'trap.example' };
  for (const [check, domain] of Object.entries(additions)) {
    const entry = checks[check];
    if (entry) checks[check] = { ...entry, options: { ...entry.options, add: [domain] } };
  }
  return compilePolicy(checked, catalog);
}

/** Every policy in policies/, by name. */
export const POLICIES: CompiledPolicy[] = readdirSync(policiesDir)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .map(withListedDomains);

const mailRoute: DomainAnswers = { mx: ['mx.example.net'], a: ['192.0.2.10'], registered: '2001-01-01' };
const noRoute: DomainAnswers = { mx: [], a: [], aaaa: [], registered: '2001-01-01' };
const fromOneIp = (n: number): HistoryEntry[] =>
  Array.from({ length: n }, (_, i) => ({ email_address: `p${i}@example.com`, ipv4_address: '203.0.113.9', minutes_ago: i + 1 }));

export interface Row {
  /** The check or free rule made to fire. */
  fires: string;
  email: string;
  network?: Record<string, DomainAnswers>;
  history?: HistoryEntry[];
  ipv4?: string;
  /** The device hash and the fingerprint token, as a policy test declares them. */
  device?: string;
  fingerprint?: TestFingerprint;
}

/** The request a row makes at time `at`, in project `projectId`. */
export function rowInput(row: Row, projectId: string, at: number): Partial<RequestInput> & { email: string } {
  const input = { email_address: row.email, ...(row.ipv4 ? { ipv4_address: row.ipv4 } : {}), ...(row.fingerprint ? { fingerprint: row.fingerprint } : {}) };
  return { email: row.email, ipv4: row.ipv4 ?? null, projectId, device: row.device ?? null, fingerprint: fingerprintOfTest(input, at) };
}

/** A British home connection, and a browser there (strict-signup's device checks). */
const HOME_IP = '81.2.69.142';
const LONDON = { timezone: 'Europe/London' };

export const ROWS: Row[] = [
  { fires: 'structure', email: 'jane.doe@@example.com' },
  { fires: 'local_empty', email: '""@example.com' },
  { fires: 'local_part_max_length', email: `${'a'.repeat(65)}@example.com` },
  { fires: 'domain_max_length', email: `a@${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.example.com` },
  { fires: 'total_address_length', email: `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.example.com` },
  { fires: 'label_max_length', email: `a@${'a'.repeat(64)}.com` },
  { fires: 'tld', email: 'jane@example.notatld' },
  { fires: 'domain_single_label', email: 'jane@localhost' },
  { fires: 'domain_numeric_only', email: 'jane@123.456' },
  { fires: 'domain_ipv4', email: 'jane@[192.0.2.1]' },
  { fires: 'domain_ipv6', email: 'jane@[IPv6:2001:db8::1]' },
  { fires: 'subdomain_wildcard', email: 'jane@*.example.com' },
  { fires: 'catch_all_wildcard', email: 'ja*ne@example.com' },
  { fires: 'disposable_domain', email: 'jane@mailinator.com' },
  { fires: 'known_abuse_domain', email: 'jane@abuse.example' },
  { fires: 'spam_trap_domain', email: 'jane@trap.example' },
  { fires: 'local_quoted', email: '"jane doe"@example.com' },
  { fires: 'local_special_chars', email: 'jane!doe@example.com' },
  { fires: 'subdomain_deeply_nested', email: 'jane@a.b.c.d.example.com' },
  { fires: 'subdomain_uuid_hash', email: 'jane@550e8400-e29b-41d4-a716-446655440000.example.com' },
  { fires: 'mixed_script_email', email: 'jane@p\u0430ypal.com' },
  { fires: 'ip_duplication', email: 'jane@example.com', ipv4: '203.0.113.9', history: fromOneIp(2) },
  { fires: 'fraud_pattern_detection', email: 'x7kq2m9vz3p8@example.com' },
  { fires: 'role_based_address', email: 'support@example.com' },
  { fires: 'fallback_a_record', email: 'jane@example.com', network: { 'example.com': noRoute } },
  { fires: 'mx_record', email: 'jane@example.com', network: { 'example.com': { ...mailRoute, mx: [] } } },
  { fires: 'domain_age', email: 'jane@example.com', network: { 'example.com': { mx: mailRoute.mx, a: mailRoute.a, registered_days_ago: 3 } } },
  { fires: 'deliverability_score', email: 'jane@example.com', network: { 'example.com': noRoute } },
  { fires: 'domain_health', email: 'jane@example.com', network: { 'example.com': 'nxdomain' } },
  { fires: 'risk_score', email: 'jane@example.com', ipv4: '203.0.113.9', history: fromOneIp(4) },
  { fires: 'typo_domain_on_the_disposable_list', email: 'jane@gmial.com' },
  // strict-signup's free rules over the caller's IP (plugins/ip-intelligence's lists): a VPN range, a Tor exit,
  // iCloud Private Relay, a cloud provider and a hosting range of no named provider.
  { fires: 'vpn_or_tor_exit', email: 'jane@example.com', ipv4: '2.26.157.1' },
  { fires: 'vpn_or_tor_exit', email: 'jane@example.com', ipv4: '5.2.67.226' },
  { fires: 'icloud_private_relay', email: 'jane@example.com', ipv4: '172.224.226.1' },
  { fires: 'datacenter_ip', email: 'jane@example.com', ipv4: '3.5.140.1' },
  { fires: 'datacenter_ip', email: 'jane@example.com', ipv4: '5.148.160.1' },
  // strict-signup's device checks (plugins/device): what the fingerprint token says of the browser.
  { fires: 'device_automation', email: 'jane@example.com', ipv4: HOME_IP, fingerprint: { ...LONDON, automation: ['webdriver'] } },
  { fires: 'fingerprint_replay', email: 'jane@example.com', ipv4: HOME_IP, fingerprint: { ...LONDON, ipv4_address: '81.2.69.160' } },
  { fires: 'device_inconsistency', email: 'jane@example.com', ipv4: HOME_IP, fingerprint: { timezone: 'Asia/Tokyo' } },
  { fires: 'fingerprint_age', email: 'jane@example.com', ipv4: HOME_IP, fingerprint: { ...LONDON, issued_minutes_ago: 45 } },
  {
    fires: 'device_ip_hopping',
    email: 'jane@example.com',
    ipv4: HOME_IP,
    device: 'dev_rows',
    fingerprint: LONDON,
    history: [
      { email_address: 'jane@example.com', ipv4_address: '198.51.100.7', device: 'dev_rows', minutes_ago: 300 },
      { email_address: 'jane@example.com', ipv4_address: '203.0.113.9', device: 'dev_rows', minutes_ago: 120 },
    ],
  },
  // b2b-only's business checks: a free mailbox, a VPN.
  { fires: 'free_provider_domain', email: 'jane.doe@gmail.com' },
  { fires: 'vpn_ip', email: 'jane.doe@example.com', ipv4: '2.26.157.1' },
];
