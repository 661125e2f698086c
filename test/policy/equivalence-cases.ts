// The inputs of the policy equivalence test (equivalence.test.ts) and what a run of them shows: every shipped
// policy, and custom intelligence verdicts, over addresses of every kind the plugins tell apart, with and
// without an IP, offline and with recorded network and history facts given. Deterministic: network checks
// off, no history, a fixed clock.
import { createHash } from 'node:crypto';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import type { ProjectListReader, RequestInput } from '../../src/engine/plugin.js';
import { OFFLINE } from '../../src/network/offline.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { compileVerdict } from '../../src/policy/compile-verdict.js';
import { evaluate, evaluateVerdict } from '../../src/policy/evaluate.js';
import type { IntelligencePolicy } from '../../src/policy/types.js';

export const ADDRESSES = [
  'jane.doe@example.com',
  'Jane.Doe@Example.COM',
  'info@example.com',
  'admin@company.org',
  'postmaster@example.net',
  'bob@mailinator.com',
  'bob@guerrillamail.com',
  'jane@gmial.com',
  'jane@hotmial.com',
  'jane@yaho.com',
  'jane@gmail.com',
  'first.last+tag@gmail.com',
  'someone@outlook.com',
  'not-an-address',
  '',
  '@example.com',
  'jane@',
  'a@b',
  'jane@localhost',
  'jane..doe@example.com',
  '.jane@example.com',
  '"quoted local"@example.com',
  'jane!#$%@example.com',
  'user@192.168.0.1',
  'user@[192.168.0.1]',
  'user@[IPv6:2001:db8::1]',
  'user@123.456',
  'user@12345.com',
  '1234567890@example.com',
  'x7f3k9q2z8@example.com',
  'qwertyuiop@example.com',
  'test123@example.com',
  'aaaaaa@example.com',
  'ceo@company.co.uk',
  'pаypal@example.com',
  'jöhn@example.com',
  'user@münchen.de',
  'user@xn--mnchen-3ya.de',
  'user@例え.jp',
  'student@mit.edu',
  'student@ox.ac.uk',
  'clerk@agency.gov',
  'clerk@service.gov.uk',
  `${'a'.repeat(70)}@example.com`,
  `user@${'b'.repeat(64)}.com`,
  `user@${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.com`,
  'user@sub.sub.sub.sub.example.com',
  'user@mail.example.com',
  'user@3f2a9c1e-7b4d-4e8f-9a6b-1c2d3e4f5a6b.example.com',
  'user@a1b2c3d4e5f6a7b8.example.com',
  'user@*.example.com',
  'user@example.invalidtld',
  'user@example.c',
  'user@example.zip',
  'user@example',
  'abuse@spamtrap.example',
];

export const IPS: ReadonlyArray<Pick<RequestInput, 'ipv4' | 'ipv6'>> = [
  { ipv4: null, ipv6: null },
  { ipv4: '198.51.100.7', ipv6: null },
  { ipv4: null, ipv6: '2001:db8::7' },
];

/**
 * Network and history facts as a recorded event carries them (the I/O plugins then do not run), or `live`:
 * every plugin runs, offline, on no history.
 */
export const WORLDS: ReadonlyArray<{ name: string; facts?: Record<string, unknown>; lists?: Record<string, string[]> }> = [
  { name: 'live' },
  { name: 'live-lists', lists: { disposable: ['example.com'], 'free-provider-exempt': ['gmail.com'], 'allowed-domains': ['example.com'] } },
  { name: 'unknown', facts: {} },
  {
    name: 'no-mail',
    facts: {
      mx_record_status: 'invalid',
      mx_record_count: 0,
      a_record_fallback: 'invalid',
      has_null_mx: false,
      domain_age_signal: 'new_domain',
      domain_age_days: 3,
    },
  },
  {
    name: 'healthy',
    facts: {
      mx_record_status: 'valid',
      mx_record_count: 2,
      a_record_fallback: 'not_needed',
      domain_age_signal: 'established',
      domain_age_days: 4000,
      has_website: true,
    },
  },
  { name: 'busy-ip', facts: { distinct_emails_in_ip: 6, distinct_emails_in_ip_last_10_minutes: 6, has_multiple_emails_in_ip: true } },
];

/** Custom intelligence verdicts (a sandbox request's custom_policy), run with the default policy's options. */
export const VERDICTS: readonly IntelligencePolicy[] = [
  {
    stop_on_block: true,
    parent_rules: [
      { field: 'domain_disposable', operator: '==', target: { bool: true }, action: 'block' },
      { field: 'email_role_based', operator: '==', target: { bool: true }, action: 'block' },
      { field: 'email_valid_format', operator: '==', target: { bool: true }, action: 'allow' },
    ],
  },
  {
    stop_on_block: false,
    parent_rules: [
      { field: 'email_valid_format', operator: '!=', target: { bool: true }, action: 'block' },
      { field: 'domain_free', operator: '==', target: { bool: true }, action: 'allow' },
      { field: 'email_has_typo', operator: '==', target: { bool: true }, action: 'block' },
      { field: 'email_deliverable', operator: '==', target: { bool: false }, action: 'block' },
      { field: 'ip_multiple_emails', operator: '==', target: { bool: true }, action: 'block' },
      { field: 'email_plus_addressing', operator: '==', target: { bool: true }, action: 'allow' },
    ],
  },
  { parent_rules: [] },
];

export const NOW = 1_700_000_000_000;

export const catalog = new FactCatalog(registry);
export const book = PolicyBook.load(policiesDir, catalog);

export interface Case {
  policy: string;
  /** Index into VERDICTS, for a verdict case. */
  verdict?: number;
  email: string;
  ip: number;
  world: string;
}

export function cases(): Case[] {
  const all: Case[] = [];
  for (const policy of book.names())
    for (const world of WORLDS) for (const email of ADDRESSES) for (let ip = 0; ip < IPS.length; ip++) all.push({ policy, email, ip, world: world.name });
  for (let verdict = 0; verdict < VERDICTS.length; verdict++)
    for (const world of WORLDS)
      for (const email of ADDRESSES) for (let ip = 0; ip < 2; ip++) all.push({ policy: 'default', verdict, email, ip, world: world.name });
  return all;
}

function listsOf(lists: Record<string, string[]> | undefined): ProjectListReader | undefined {
  if (!lists) return undefined;
  return { entries: (list) => Promise.resolve(new Set(lists[list] ?? [])) };
}

/**
 * What a run of `c` shows: the decision, the steps and checked types, the explanation, and the values of the
 * facts of `factPlugins` (the plugins registered when the answers were recorded: a plugin added since, which
 * no shipped policy enables, changes no recorded answer).
 */
export async function runCase(c: Case, factPlugins: readonly string[]): Promise<Record<string, unknown>> {
  const policy = book.byName(c.policy);
  if (!policy) throw new Error(`no policy ${c.policy}`);
  const world = WORLDS.find((w) => w.name === c.world);
  if (!world) throw new Error(`no world ${c.world}`);
  const ioFacts = new Set([...catalog.owner].filter(([, p]) => p.io).map(([fact]) => fact));
  const facts = world.facts;
  const given = facts ? (fact: string) => (ioFacts.has(fact) ? (facts[fact] ?? null) : undefined) : undefined;
  const lists = listsOf(world.lists);
  const services = { velocity: noHistory, network: OFFLINE, now: () => NOW, ...(lists ? { lists } : {}) };
  const { ipv4, ipv6 } = IPS[c.ip] as Pick<RequestInput, 'ipv4' | 'ipv6'>;
  const input: RequestInput = { email: c.email, ipv4, ipv6, softCheck: false, projectId: 'p', device: null };
  if (c.verdict !== undefined) {
    const verdict = compileVerdict(VERDICTS[c.verdict] as IntelligencePolicy, catalog);
    const evaluation = await evaluateVerdict(policy, verdict, input, services);
    const steps = await evaluation.steps();
    return { decision: evaluation.decision, steps, applied: [...evaluation.pluginsApplied].sort() };
  }
  const evaluation = await evaluate(policy, input, services, { explain: true, ...(given ? { given } : {}) });
  const { action, errors, warnings, fired } = evaluation.decision;
  const steps = await evaluation.steps();
  const checkedTypes = await evaluation.checkedTypes();
  const applied = [...evaluation.pluginsApplied].sort();
  const recorded = await evaluation.recorded();
  const shown: Record<string, unknown> = { action, errors, warnings, fired: fired.map((v) => `${v.source}:${v.name}`), steps, checkedTypes, applied };
  shown.recorded = digest(recorded);
  // Explanations and fact values by digest: in full they would make the fixture tens of megabytes.
  shown.explanation = digest(evaluation.explanation);
  // The facts once per policy, address and IP (they do not depend on the world but through the I/O ones).
  if (c.world === 'live') {
    const names = factPlugins.flatMap((id) => Object.keys(catalog.plugins.get(id)?.facts ?? {}));
    const values = await evaluation.facts(names);
    shown.facts = digest(Object.fromEntries(names.map((name, i) => [name, values[i]])));
  }
  return shown;
}

/** A value's digest, of its JSON with object keys sorted. */
function digest(value: unknown): string {
  const sorted = JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
  return createHash('sha256')
    .update(sorted ?? 'undefined')
    .digest('base64')
    .slice(0, 16);
}

export const caseKey = (c: Case) => `${c.policy}${c.verdict === undefined ? '' : `#verdict${c.verdict}`}|${c.world}|ip${c.ip}|${c.email}`;
