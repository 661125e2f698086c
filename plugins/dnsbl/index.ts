// DNS blocklists: the deployment's domain zones (RHSBL, such as dbl.spamhaus.org) asked about the address's
// registrable domain, its IP zones (such as zen.spamhaus.org) about the request's public IP. Each zone's
// return codes mean a category (return-codes.ts); a zone that fails or refuses the question is unknown.
import ipaddr from 'ipaddr.js';
import type { BlocklistAnswer, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { asciiDomainOf } from '../plugin-data.js';
import { DOMAIN_CATEGORIES, DOMAIN_CODES, IP_CATEGORIES, IP_CODES, isBlocklistAnswer, isRefusal, NOT_ABUSE } from './return-codes.js';

/** What one zone said: a listing in a category, no listing, or nothing to go by. */
type ZoneVerdict = { zone: string; category: string } | 'not_listed' | 'unknown';

/** What the zones of one kind say together; null: nothing was asked (no zone, no name to ask about). */
export interface Listing {
  /** A zone lists it as a source of abuse; false when every zone answered and none did; null when one could not tell. */
  listed: boolean | null;
  /** The most severe category any zone gave, abuse or not. */
  category: string | null;
  /** The zone that gave it. */
  zone: string | null;
}

function verdictOf({ zone, answer }: BlocklistAnswer, codes: Readonly<Record<string, string>>, order: readonly string[]): ZoneVerdict {
  if (answer.status === 'nxdomain' || answer.status === 'nodata') return 'not_listed';
  if (answer.status !== 'ok' || answer.records.length === 0) return 'unknown';
  if (answer.records.some((address) => isRefusal(address) || !isBlocklistAnswer(address))) return 'unknown';
  const categories = answer.records.map((address) => codes[address] ?? 'unclassified');
  return { zone, category: mostSevere(categories, order) as string };
}

const mostSevere = (categories: readonly string[], order: readonly string[]): string | undefined => order.find((category) => categories.includes(category));

/** The zones' answers taken together: any abuse listing lists; otherwise one zone that could not tell leaves it unknown. */
export function listingOf(answers: readonly BlocklistAnswer[], codes: Readonly<Record<string, string>>, order: readonly string[]): Listing | null {
  if (answers.length === 0) return null;
  const verdicts = answers.map((answer) => verdictOf(answer, codes, order));
  const listings = verdicts.filter((verdict): verdict is { zone: string; category: string } => typeof verdict === 'object');
  const category = mostSevere(
    listings.map((listing) => listing.category),
    order,
  );
  const worst = listings.find((listing) => listing.category === category) ?? null;
  const found = { category: worst?.category ?? null, zone: worst?.zone ?? null };
  if (listings.some((listing) => !NOT_ABUSE.has(listing.category))) return { listed: true, ...found };
  return { listed: verdicts.includes('unknown') ? null : false, ...found };
}

/** An address a blocklist can list: public unicast (no private, loopback, documentation or reserved range). */
function isPublic(text: string | null): text is string {
  if (text === null || !ipaddr.isValid(text)) return false;
  return ipaddr.process(text).range() === 'unicast';
}

const plugin: Plugin = {
  id: 'dnsbl',
  description: "Asks the deployment's DNS blocklists (DNSBL_DOMAIN_ZONES, DNSBL_IP_ZONES) about the address's domain and the request's IP.",
  steps: ['dnsbl_domain', 'dnsbl_ip'],
  codes: {
    domain_on_dnsbl: { error: 'reputation', warning: 'a DNS blocklist lists the domain as a source of abuse' },
    ip_on_dnsbl: { error: 'reputation', warning: 'a DNS blocklist lists the IP address as a source of abuse' },
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
    dnsbl_ip_listed: {
      type: 'boolean',
      description:
        "An IP zone lists the request's public IP as a source of abuse (any category but end_user_range); false when every zone answered and none did; null when one could not tell, there is no public IP or no zone is configured.",
      expose: 'analyzed_data',
    },
    dnsbl_ip_category: {
      type: 'string',
      description: "The most severe category an IP zone gave (Spamhaus ZEN's return codes; unclassified: another listing code); null when none lists it.",
      values: IP_CATEGORIES,
      expose: 'analyzed_data',
    },
    dnsbl_ip_zone: { type: 'string', description: 'The IP zone that gave dnsbl_ip_category.', expose: 'analyzed_data' },
  },
  checks: {
    dnsbl_domain: {
      description: "A DNS blocklist lists the address's registrable domain as a source of spam, phishing, malware or a botnet.",
      when: { fact: 'dnsbl_domain_listed', operator: 'equal', value: true },
      code: 'domain_on_dnsbl',
      checkedType: 'dnsbl',
    },
    dnsbl_ip: {
      description: "A DNS blocklist lists the request's IP address as a source of abuse.",
      when: { fact: 'dnsbl_ip_listed', operator: 'equal', value: true },
      code: 'ip_on_dnsbl',
      checkedType: 'dnsbl',
    },
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    if (!ctx.network.enabled) return {};
    const [domain, ip] = await Promise.all([domainListing(ctx), ipListing(ctx)]);
    return {
      ...(domain && { dnsbl_domain_listed: domain.listed, dnsbl_domain_category: domain.category, dnsbl_domain_zone: domain.zone }),
      ...(ip && { dnsbl_ip_listed: ip.listed, dnsbl_ip_category: ip.category, dnsbl_ip_zone: ip.zone }),
    };
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

/** The request's public IPs (IPv4 and IPv6 when it gives both), asked of every IP zone. */
async function ipListing(ctx: PluginContext): Promise<Listing | null> {
  const addresses = [ctx.input.ipv4, ctx.input.ipv6].filter(isPublic);
  if (addresses.length === 0) return null;
  const answers = await Promise.all(addresses.map((address) => ctx.network.blocklists.ip(address))).catch(() => null);
  return answers === null ? null : listingOf(answers.flat(), IP_CODES, IP_CATEGORIES);
}

export default plugin;
