// DNS blocklists for the caller: the deployment's IP zones (such as zen.spamhaus.org) asked about the
// request's public IP. A plugin of its own so that the IP zones are asked only when something reads its
// facts (a policy enabling dnsbl_ip, or a risk weight for it), not whenever known-abuse reads dnsbl's.
import ipaddr from 'ipaddr.js';
import type { FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { IP_CATEGORIES, IP_CODES, type Listing, listingOf } from '../blocklist-answers.js';
import { factCheck } from '../fact-checks.js';

/** An address a blocklist can list: public unicast (no private, loopback, documentation or reserved range). */
function isPublic(text: string | null): text is string {
  if (text === null || !ipaddr.isValid(text)) return false;
  return ipaddr.process(text).range() === 'unicast';
}

const plugin: Plugin = {
  id: 'dnsbl-ip',
  description: "Asks the deployment's IP blocklists (DNSBL_IP_ZONES) about the request's public IP.",
  steps: ['dnsbl_ip'],
  codes: {
    ip_on_dnsbl: { error: 'reputation', warning: 'a DNS blocklist lists the IP address as a source of abuse' },
  },
  io: true,
  network: true,
  facts: {
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
    dnsbl_ip: factCheck('dnsbl', 'dnsbl_ip_listed', 'ip_on_dnsbl', "A DNS blocklist lists the request's IP address as a source of abuse."),
  },
  needs: [],
  async run(ctx): Promise<FactValues> {
    if (!ctx.network.enabled) return {};
    const listing = await ipListing(ctx);
    return listing ? { dnsbl_ip_listed: listing.listed, dnsbl_ip_category: listing.category, dnsbl_ip_zone: listing.zone } : {};
  },
};

/** The request's public IPs (IPv4 and IPv6 when it gives both), asked of every IP zone. */
async function ipListing(ctx: PluginContext): Promise<Listing | null> {
  const addresses = [ctx.input.ipv4, ctx.input.ipv6].filter(isPublic);
  if (addresses.length === 0) return null;
  const answers = await Promise.all(addresses.map((address) => ctx.network.blocklists.ip(address))).catch(() => null);
  return answers === null ? null : listingOf(answers.flat(), IP_CODES, IP_CATEGORIES);
}

export default plugin;
