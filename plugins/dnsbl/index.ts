// DNS blocklists for the domain (RHSBL): the deployment's domain zones (such as dbl.spamhaus.org) asked
// about the address's registrable domain. Each zone's return codes mean a category (blocklist-answers.ts);
// a zone that fails or refuses the question is unknown. The request's IP is dnsbl-ip's: a plugin computes
// all its facts when one is read, and known-abuse reads this one on every request.
import type { FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { DOMAIN_CATEGORIES, DOMAIN_CODES, type Listing, listingOf } from '../blocklist-answers.js';
import { factCheck } from '../fact-checks.js';
import { asciiDomainOf } from '../plugin-data.js';

const plugin: Plugin = {
  id: 'dnsbl',
  description: "Asks the deployment's domain blocklists (DNSBL_DOMAIN_ZONES, RHSBL) about the address's registrable domain.",
  steps: ['dnsbl_domain'],
  codes: {
    domain_on_dnsbl: { error: 'reputation', warning: 'a DNS blocklist lists the domain as a source of abuse' },
  },
  io: true,
  network: true,
  facts: {
    dnsbl_domain_listed: {
      type: 'boolean',
      description:
        'A domain zone lists the registrable domain as a source of abuse (any category but abused_legit); false when every zone answered and none did; null when one could not tell (failed, timed out, refused the query) or no zone is configured.',
      expose: 'analyzed_data',
    },
    dnsbl_domain_category: {
      type: 'string',
      description: "The most severe category a domain zone gave (Spamhaus DBL's return codes; unclassified: another listing code); null when none lists it.",
      values: DOMAIN_CATEGORIES,
      expose: 'analyzed_data',
    },
    dnsbl_domain_zone: { type: 'string', description: 'The domain zone that gave dnsbl_domain_category.', expose: 'analyzed_data' },
  },
  checks: {
    dnsbl_domain: factCheck(
      'dnsbl',
      'dnsbl_domain_listed',
      'domain_on_dnsbl',
      "A DNS blocklist lists the address's registrable domain as a source of spam, phishing, malware or a botnet.",
    ),
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    if (!ctx.network.enabled) return {};
    const listing = await domainListing(ctx);
    return listing ? { dnsbl_domain_listed: listing.listed, dnsbl_domain_category: listing.category, dnsbl_domain_zone: listing.zone } : {};
  },
};

/** The registrable domain (what a domain zone lists), asked of every domain zone. */
async function domainListing(ctx: PluginContext): Promise<Listing | null> {
  if ((await ctx.fact('valid_address_format')) !== true) return null;
  if ((await asciiDomainOf(ctx, 'dns')) === null) return null;
  const registrable = await ctx.fact('registrable_domain');
  if (typeof registrable !== 'string') return null;
  const answers = await ctx.network.blocklists.domain(registrable).catch(() => null);
  return answers === null ? null : listingOf(answers, DOMAIN_CODES, DOMAIN_CATEGORIES);
}

export default plugin;
