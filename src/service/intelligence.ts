// POST /v1/intelligence: the verdict, the address's analysis and normalised forms, and its velocity.
// The verdict comes from the project's policy (`intelligence:` section) or, for a sandbox project, from
// the request's custom_policy. IP intelligence (form B's `ip`) comes from the fingerprint's IP.
import createError from 'http-errors';
import { CustomPolicyError } from '../policy/book.js';
import { type CompiledVerdict, verdictFact } from '../policy/compile-verdict.js';
import { evaluateVerdict } from '../policy/evaluate.js';
import type { IntelligencePolicy } from '../policy/types.js';
import { canonicalIp } from '../store/events.js';
import type { Project } from '../store/projects.js';
import { runServices, type ServiceContext } from './context.js';
import { type CallContext, type Decided, newDecisionId, type PolicyTexts } from './decisions.js';
import { type FingerprintSealer, openFingerprintField } from './fingerprint.js';

export interface IntelligenceRequest {
  email_address: string;
  fingerprint?: string;
  custom_policy?: IntelligencePolicy & { version?: string };
}

const VELOCITY_ITEMS = 20;

export interface IntelligenceDeps {
  sealer: FingerprintSealer;
  /** Stores the text of each policy revision before the first event it decides. */
  texts: PolicyTexts;
}

/** Several facts' values, with one wait. */
type FactReader = (names: readonly string[]) => Promise<unknown[]>;

export async function intelligence(
  ctx: ServiceContext,
  deps: IntelligenceDeps,
  project: Project,
  request: IntelligenceRequest,
  call: CallContext,
): Promise<Decided<Record<string, unknown>>> {
  const policy = ctx.policies.forProject(project);
  const verdict = verdictFor(ctx, project, request);
  const fingerprint = openFingerprintField(deps.sealer, request.fingerprint, project.id, ctx.now());
  const ip = { ipv4: canonicalIp(fingerprint?.input.ipv4), ipv6: canonicalIp(fingerprint?.input.ipv6) };
  const device = fingerprint?.device ?? null;
  const input = { email: request.email_address, ...ip, softCheck: false, projectId: project.id, device, fingerprint: fingerprint?.input ?? null };
  const evaluation = await evaluateVerdict(policy, verdict, input, runServices(ctx, project, true));
  const f: FactReader = (names) => evaluation.facts(names);
  const { action, decidedBy } = evaluation.decision;
  const [base, lower, domain] = (await f(EVENT_FACTS)) as [string | null, string | null, unknown];
  const emailLower = lower ?? request.email_address.toLowerCase();
  const history = base ? await ctx.store.events.byEmail(project.id, base, VELOCITY_ITEMS) : { items: [], count: 0 };
  const fromIp = ip.ipv4 || ip.ipv6 ? await ctx.store.events.byIpHistory(project.id, ip, VELOCITY_ITEMS) : { items: [], count: 0 };
  const formA = ctx.config.intelligenceForm === 'A';

  const decidingRule = decidedBy === null ? undefined : verdict.parents[decidedBy];
  const parentRule = decidingRule ? { index: decidedBy, ...decidingRule } : null;
  const response: Record<string, unknown> = { action, parent_rule: parentRule };
  // A verdict the risk score decided says why: the score, its level and what made it up (added beyond the interface).
  if (decidingRule && verdictFact(decidingRule.field, policy.catalog) === 'is_high_risk') {
    const [score, level, breakdown] = await f(RISK_FACTS);
    response.risk = { risk_score: score, risk_level: level, risk_score_breakdown: breakdown };
  }
  response.email = await emailAnalysis(f);
  // The fingerprint's IP is the evaluation's input: ip-intelligence's facts, all null without a fingerprint.
  if (!formA) {
    const [isDatacenter, isTor, isVpn, asn, asOrg, country, networkType] = await f(IP_FACTS);
    // The interface's three flags, then ip-network's fields (added beyond the interface: docs/api.md).
    response.ip = { is_datacenter: isDatacenter, is_tor: isTor, is_vpn: isVpn, asn, as_org: asOrg, country, network_type: networkType };
  }
  response.velocity_by_email = {
    items: history.items.map((item) =>
      formA ? { base_email: item.baseEmail, created_at: Math.floor(item.at / 1000) } : { passed_email: item.email, created_at: Math.floor(item.at / 1000) },
    ),
    count: history.count,
  };
  if (!formA) {
    response.velocity_by_ip = {
      items: fromIp.items.map((item) => ({ ipv4_address: item.ipv4, ipv6_address: item.ipv6, created_at: Math.floor(item.at / 1000) })),
      count: fromIp.count,
    };
  }

  // A request's custom_policy is no revision of the project's: its text is not kept.
  const storing = request.custom_policy ? undefined : deps.texts.remembered(policy);
  if (storing) await storing;
  const decisionId = newDecisionId();
  await ctx.store.events.record({
    projectId: project.id,
    endpoint: 'intelligence',
    email: request.email_address,
    emailLower,
    baseEmail: base ?? emailLower,
    domain: typeof domain === 'string' ? domain : null,
    ...ip,
    device,
    fingerprintToken: fingerprint?.input.token ?? null,
    action,
    decisionId,
    requestId: call.requestId,
    policyName: request.custom_policy ? 'custom_policy' : policy.name,
    policyRevision: request.custom_policy ? `custom:${verdict.revision}` : policy.revision,
    parentRule: decidedBy,
    createdAt: ctx.now(),
    countsTowardQuota: !project.sandbox,
  });
  return { body: response, decisionId };
}

function verdictFor(ctx: ServiceContext, project: Project, request: IntelligenceRequest): CompiledVerdict {
  if (!request.custom_policy) return ctx.policies.forProject(project).verdict;
  if (!project.sandbox) throw createError(400, 'custom_policy: accepted only for sandbox projects (it is a testing override)');
  try {
    return ctx.policies.customVerdict(request.custom_policy);
  } catch (error) {
    if (error instanceof CustomPolicyError) throw createError(400, error.message);
    throw error;
  }
}

/** What the event stores besides the request's own fields. */
const EVENT_FACTS = ['base_email', 'email_lower', 'domain'] as const;
const RISK_FACTS = ['risk_score', 'risk_level', 'risk_score_breakdown'] as const;
const IP_FACTS = ['is_datacenter', 'is_tor', 'is_vpn', 'ip_asn', 'ip_as_org', 'ip_country', 'ip_network_type'] as const;

const EMAIL_FACTS = [
  'valid_address_format',
  'base_email',
  'without_plus_addressing',
  'without_dot_variations',
  'without_punycode',
  'corrected_email',
  'deliverability',
  'fraud_pattern',
  'mixed_script',
  'has_fraud_pattern',
  'has_mixed_script',
  'has_dot_variation',
  'has_plus_addressing',
  'has_special_characters',
  'has_numeric',
  'has_hyphen',
  'has_underscore',
  'is_quoted',
  'free_provider',
  'punycode_value',
  'has_valid_tld',
  'has_website',
  'has_punycode',
  'has_typo_mismatch',
  'is_ipv4',
  'is_ipv6',
  'is_only_numeric',
  'is_single_label',
  'subdomain_count',
  'subdomain_has_hyphen',
  'subdomain_has_numeric',
  'subdomain_has_numeric_label',
  'subdomain_has_uuid',
  'subdomain_has_wildcard',
] as const;

/** The values of `names` by name, asked for at once. */
function byName<N extends string>(names: readonly N[], values: readonly unknown[]): Record<N, unknown> {
  const named = {} as Record<N, unknown>;
  for (let i = 0; i < names.length; i++) named[names[i] as N] = values[i];
  return named;
}

/** The `email` object: normalised forms and the local and domain analysis. */
async function emailAnalysis(f: FactReader) {
  // Every fact shown, asked for at once: one wait rather than one per fact.
  const v = byName(EMAIL_FACTS, await f(EMAIL_FACTS));
  const valid = v.valid_address_format === true;
  const category = valid ? domainCategory(f) : 'unknown';
  return {
    normalized: {
      base: v.base_email,
      without_plus_addressing: v.without_plus_addressing,
      without_dot_variations: v.without_dot_variations,
      without_punycode: v.without_punycode,
      without_typo_mismatch: v.corrected_email,
    },
    details: {
      deliverability: v.deliverability ?? 'unknown',
      local: {
        fraud_pattern: v.fraud_pattern,
        mixed_script: v.mixed_script,
        has_fraud_pattern: v.has_fraud_pattern,
        has_mixed_script: v.has_mixed_script,
        has_dot_variation: v.has_dot_variation,
        has_plus_addressing: v.has_plus_addressing,
        has_special_characters: v.has_special_characters,
        has_numeric: v.has_numeric,
        has_hyphen: v.has_hyphen,
        has_underscore: v.has_underscore,
        is_quoted: v.is_quoted,
      },
      domain: {
        category: typeof category === 'string' ? category : await category,
        free_provider: v.free_provider,
        punycode_value: v.punycode_value,
        has_valid_tld: v.has_valid_tld,
        has_website: v.has_website,
        has_punycode: v.has_punycode,
        has_typo_mismatch: v.has_typo_mismatch,
        is_ipv4: v.is_ipv4,
        is_ipv6: v.is_ipv6,
        is_only_numeric: v.is_only_numeric,
        is_single_label: v.is_single_label,
        subdomain: {
          count: v.subdomain_count,
          has_hyphen: v.subdomain_has_hyphen,
          has_numeric: v.subdomain_has_numeric,
          has_numeric_label: v.subdomain_has_numeric_label,
          has_uuid: v.subdomain_has_uuid,
          has_wildcard: v.subdomain_has_wildcard,
        },
      },
    },
  };
}

/**
 * business, free, education, government, disposable or unknown: the first classification that holds,
 * in that order of precedence (disposable first); business for any other domain with a valid TLD.
 */
async function domainCategory(f: FactReader): Promise<string> {
  // One by one, in order of precedence: a classification that decides spares the plugins of the next ones.
  for (const [fact, category] of CATEGORIES) {
    const [value] = await f(fact);
    if (value === true) return category;
  }
  return 'unknown';
}

const CATEGORIES = [
  [['is_disposable_domain'], 'disposable'],
  [['is_education_domain'], 'education'],
  [['is_government_domain'], 'government'],
  [['is_free_provider_domain'], 'free'],
  [['has_valid_tld'], 'business'],
] as const;
