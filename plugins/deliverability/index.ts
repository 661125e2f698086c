// Deliverability: can mail reach the domain, and how much evidence says the address is worth mailing?
// A 0–100 score from MX, A/AAAA, domain age and subdomain facts, with the policy's weights. No I/O.
import type { CheckOptions, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { DEFAULT_WEIGHTS, type Evidence, PARTS, score, type Weights } from './score.js';

const DEFAULT_MIN_SCORE = 40;

function minScore(options: CheckOptions): number {
  const value = options.min_score;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100 ? value : DEFAULT_MIN_SCORE;
}

function weights(options: CheckOptions): Weights {
  const given = options.weights as Record<string, unknown> | undefined;
  const valid = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100;
  if (!given || typeof given !== 'object' || !PARTS.every((part) => valid(given[part]))) return { ...DEFAULT_WEIGHTS };
  return Object.fromEntries(PARTS.map((part) => [part, given[part]])) as Weights;
}

/** The facts the score reads, in one list: read together, one wait for all of them. */
const EVIDENCE_FACTS = [
  'mx_record_status',
  'a_record_fallback',
  'a_record_count',
  'aaaa_record_count',
  'has_null_mx',
  'mx_hosts_are_ips',
  'domain_age_signal',
  'domain_age_days',
  'subdomain_count',
  'random_subdomain_signal',
  'uuid_subdomain_risk_signal',
  'deep_nesting_risk_signal',
] as const;

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);

async function evidence(ctx: PluginContext): Promise<Evidence> {
  return evidenceOf(await ctx.facts(EVIDENCE_FACTS));
}

function evidenceOf([
  mxStatus,
  aFallback,
  aCount,
  aaaaCount,
  hasNullMx,
  mxHostsAreIps,
  ageSignal,
  ageDays,
  subdomainCount,
  randomSubdomain,
  uuidSubdomain,
  deepNesting,
]: unknown[]): Evidence {
  return {
    mxStatus: str(mxStatus),
    aFallback: str(aFallback),
    aCount: int(aCount),
    aaaaCount: int(aaaaCount),
    hasNullMx: bool(hasNullMx),
    mxHostsAreIps: bool(mxHostsAreIps),
    ageSignal: str(ageSignal),
    ageDays: int(ageDays),
    subdomainCount: int(subdomainCount),
    randomSubdomain: str(randomSubdomain),
    uuidSubdomain: str(uuidSubdomain),
    deepNesting: str(deepNesting),
  };
}

const DELIVERABILITY_VALUES = ['deliverable', 'undeliverable', 'unknown'] as const;
const part = (what: string) => `Points the ${what} earned out of its weight; null when unknown.`;

const plugin: Plugin = {
  id: 'deliverability',
  description: 'Scores 0–100 how deliverable the domain is from its MX, A/AAAA, age and subdomain facts, and says deliverable, undeliverable or unknown.',
  steps: ['deliverability_score'],
  codes: {
    low_deliverability_score: { error: 'reputation', warning: 'the deliverability score is below min_score, or mail cannot be routed to the domain' },
  },
  facts: {
    deliverability_score: {
      type: 'integer',
      description: 'Sum of the four contributions over the weight of the known ones, 0–100; null when the mail route is unknown.',
      expose: 'analyzed_data',
    },
    deliverability_mx_score: { type: 'integer', description: part('MX records'), expose: 'analyzed_data' },
    deliverability_a_score: { type: 'integer', description: part('A/AAAA records'), expose: 'analyzed_data' },
    deliverability_age_score: { type: 'integer', description: part('domain age'), expose: 'analyzed_data' },
    deliverability_subdomain_score: { type: 'integer', description: part('subdomain shape'), expose: 'analyzed_data' },
    deliverability: {
      type: 'string',
      description: 'undeliverable: no mail route or score below min_score; deliverable: a route and score at least min_score; else unknown.',
      values: DELIVERABILITY_VALUES,
      unknownValues: ['unknown'],
    },
    email_deliverable: { type: 'boolean', description: 'true when deliverable, false when undeliverable, null when unknown.' },
  },
  checks: {
    deliverability_score: {
      description: 'The deliverability score is below min_score, or mail cannot be routed to the domain at all.',
      when: (options) => ({
        any: [
          { fact: 'deliverability_score', operator: 'lessThan', value: minScore(options) },
          { fact: 'deliverability', operator: 'equal', value: 'undeliverable' },
        ],
      }),
      code: 'low_deliverability_score',
      options: {
        type: 'object',
        properties: {
          weights: {
            type: 'object',
            description: 'Weight of each part; meant to sum to 100 (other sums are scaled to 100).',
            properties: Object.fromEntries(PARTS.map((p) => [p, { type: 'integer', minimum: 0, maximum: 100 }])),
            required: [...PARTS],
            additionalProperties: false,
          },
          min_score: { type: 'integer', minimum: 0, maximum: 100, description: 'Lowest score that counts as deliverable.' },
        },
        additionalProperties: false,
      },
      defaults: { weights: { ...DEFAULT_WEIGHTS }, min_score: DEFAULT_MIN_SCORE },
    },
  },
  needs: ['dns', 'domain-age', 'subdomain'],
  async run(ctx): Promise<FactValues> {
    const options = ctx.options('deliverability_score');
    const result = score(await evidence(ctx), weights(options));
    let deliverability: (typeof DELIVERABILITY_VALUES)[number];
    if (result.route === 'no') deliverability = 'undeliverable';
    else if (result.score === null) deliverability = 'unknown';
    else deliverability = result.score >= minScore(options) ? 'deliverable' : 'undeliverable';
    return {
      deliverability_score: result.score,
      deliverability_mx_score: result.contributions.mx,
      deliverability_a_score: result.contributions.a,
      deliverability_age_score: result.contributions.age,
      deliverability_subdomain_score: result.contributions.subdomain,
      deliverability,
      email_deliverable: deliverability === 'unknown' ? null : deliverability === 'deliverable',
    };
  },
};

export default plugin;
