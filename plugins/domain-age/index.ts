// Domain age: when the registrable domain was registered, from RDAP (through ctx.network), and whether
// that is recent. Unknown (no RDAP service, timeout, offline) is "unknown", never "new".
import type { CheckOptions, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';

const DAY_MS = 86_400_000;
const DEFAULT_NEW_DOMAIN_DAYS = 30;

function newDomainDays(options: CheckOptions): number {
  const value = options.new_domain_days;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : DEFAULT_NEW_DOMAIN_DAYS;
}

const plugin: Plugin = {
  id: 'domain-age',
  description: 'Looks up when the registrable domain was registered (RDAP) and flags domains younger than new_domain_days.',
  steps: ['domain_age'],
  codes: {
    domain_is_new: { error: 'reputation', warning: 'the registrable domain was registered recently (domain_age new_domain_days)' },
  },
  io: true,
  network: true,
  facts: {
    domain_age_days: {
      type: 'integer',
      description: 'Whole days since the registrable domain was registered (RDAP registration event).',
      expose: 'analyzed_data',
    },
    domain_age_signal: {
      type: 'string',
      description: 'new_domain: younger than new_domain_days (default 30); established: older; unknown: no registration date could be had.',
      values: ['established', 'new_domain', 'unknown'],
      unknownValues: ['unknown'],
      expose: 'analyzed_data',
    },
    domain_registered_at: { type: 'string', description: 'Registration time of the registrable domain, ISO 8601 (UTC).' },
  },
  checks: {
    domain_age: {
      description: 'The registrable domain was registered fewer than new_domain_days days ago.',
      when: { fact: 'domain_age_signal', operator: 'equal', value: 'new_domain' },
      code: 'domain_is_new',
      options: {
        type: 'object',
        properties: {
          new_domain_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'A domain younger than this many days is new.' },
        },
        additionalProperties: false,
      },
      defaults: { new_domain_days: DEFAULT_NEW_DOMAIN_DAYS },
    },
  },
  needs: ['tld'],
  async run(ctx): Promise<FactValues> {
    const registrable = await ctx.fact('registrable_domain');
    if (typeof registrable !== 'string') return {};
    if (!ctx.network.enabled) return { domain_age_signal: 'unknown' };
    return registeredAge(ctx, registrable);
  },
};

async function registeredAge(ctx: PluginContext, registrable: string): Promise<FactValues> {
  const found = await ctx.network.registration.registered(registrable).catch(() => null);
  if (found?.status !== 'ok') return { domain_age_signal: 'unknown' };
  // A registration a few hours in the future (clock skew) is a domain of age 0.
  const days = Math.max(0, Math.floor((ctx.now() - found.value) / DAY_MS));
  return {
    domain_age_days: days,
    domain_age_signal: days < newDomainDays(ctx.options('domain_age')) ? 'new_domain' : 'established',
    domain_registered_at: new Date(found.value).toISOString(),
  };
}

export default plugin;
