// Domain health: one word for the state of the domain from its DNS, age, website and subdomain facts.
// The rules are an ordered table (README.md); the first row that holds decides. No I/O.
import type { CheckOptions, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';

const HEALTH_VALUES = ['excellent', 'healthy', 'risky', 'suspicious', 'dead', 'unknown'] as const;
type Health = (typeof HEALTH_VALUES)[number];

const DEFAULT_FLAG: readonly Health[] = ['dead', 'suspicious'];
const DEFAULT_EXCELLENT_MIN_DAYS = 365;

function flagged(options: CheckOptions): Health[] {
  const value = options.flag;
  if (!Array.isArray(value)) return [...DEFAULT_FLAG];
  return value.filter((v): v is Health => (HEALTH_VALUES as readonly unknown[]).includes(v));
}

function excellentMinDays(options: CheckOptions): number {
  const value = options.excellent_min_days;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : DEFAULT_EXCELLENT_MIN_DAYS;
}

interface Signals {
  mxStatus: unknown;
  aFallback: unknown;
  hasNullMx: unknown;
  mxHostsAreIps: unknown;
  ageSignal: unknown;
  ageDays: unknown;
  hasWebsite: unknown;
  randomSubdomain: unknown;
  uuidSubdomain: unknown;
  deepNesting: unknown;
}

const SIGNAL_FACTS = [
  'mx_record_status',
  'a_record_fallback',
  'has_null_mx',
  'mx_hosts_are_ips',
  'domain_age_signal',
  'domain_age_days',
  'has_website',
  'random_subdomain_signal',
  'uuid_subdomain_risk_signal',
  'deep_nesting_risk_signal',
] as const;

async function signals(ctx: PluginContext): Promise<Signals> {
  // Read together: the plugins behind them (DNS, RDAP, the website probe) wait in parallel.
  const [mxStatus, aFallback, hasNullMx, mxHostsAreIps, ageSignal, ageDays, hasWebsite, randomSubdomain, uuidSubdomain, deepNesting] =
    await ctx.facts(SIGNAL_FACTS);
  return { mxStatus, aFallback, hasNullMx, mxHostsAreIps, ageSignal, ageDays, hasWebsite, randomSubdomain, uuidSubdomain, deepNesting };
}

/** The first row of the README's table that holds; null when there is no domain to look up. */
function health(s: Signals, minExcellentDays: number): Health | null {
  if (s.mxStatus === null) return null;
  if (s.hasNullMx === true || (s.mxStatus === 'invalid' && s.aFallback === 'invalid')) return 'dead';
  const mxValid = s.mxStatus === 'valid';
  if (!mxValid && !(s.mxStatus === 'invalid' && s.aFallback === 'valid')) return 'unknown';
  const isNew = s.ageSignal === 'new_domain';
  const oddLabel = s.randomSubdomain === 'detected' || s.uuidSubdomain === 'detected';
  if (isNew && (oddLabel || s.hasWebsite === false)) return 'suspicious';
  if (isNew || oddLabel || s.deepNesting === 'detected' || !mxValid || s.mxHostsAreIps === true) return 'risky';
  const old = s.ageSignal === 'established' && typeof s.ageDays === 'number' && s.ageDays >= minExcellentDays;
  return old && s.hasWebsite === true ? 'excellent' : 'healthy';
}

const plugin: Plugin = {
  id: 'domain-health',
  description: 'Rates the domain excellent, healthy, risky, suspicious, dead or unknown from its MX, A/AAAA, age, website and subdomain facts.',
  steps: ['domain_health'],
  codes: {
    poor_domain_health: { error: 'reputation', warning: 'the domain health is one of the flagged values (default dead, suspicious)' },
  },
  facts: {
    domain_health: {
      type: 'string',
      description: 'excellent, healthy, risky, suspicious, dead, or unknown when DNS did not answer; null when there is no domain to look up.',
      values: HEALTH_VALUES,
      unknownValues: ['unknown'],
      expose: 'analyzed_data',
    },
  },
  checks: {
    domain_health: {
      description: 'The domain health is one of the flagged values (default dead and suspicious).',
      when: (options) => ({ fact: 'domain_health', operator: 'in', value: flagged(options) }),
      code: 'poor_domain_health',
      options: {
        type: 'object',
        properties: {
          flag: {
            type: 'array',
            items: { type: 'string', enum: [...HEALTH_VALUES] },
            uniqueItems: true,
            description: 'Health values the check fires on.',
          },
          excellent_min_days: {
            type: 'integer',
            minimum: 0,
            maximum: 36500,
            description: 'Fewest days since registration for an excellent domain.',
          },
        },
        additionalProperties: false,
      },
      defaults: { flag: [...DEFAULT_FLAG], excellent_min_days: DEFAULT_EXCELLENT_MIN_DAYS },
    },
  },
  needs: ['dns', 'domain-age', 'subdomain', 'website'],
  async run(ctx): Promise<FactValues> {
    return { domain_health: health(await signals(ctx), excellentMinDays(ctx.options('domain_health'))) };
  },
};

export default plugin;
