// Stand-ins for the plugins that ask the network (dns, domain-age, website): the real plugins' ids and
// declared facts, answering from a table per domain, so the plugins built on them (deliverability,
// domain-health) are tested without any network.
import dns from '../../plugins/dns/index.js';
import domainAge from '../../plugins/domain-age/index.js';
import { registry } from '../../plugins/index.js';
import website from '../../plugins/website/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import type { FactValues, Plugin } from '../../src/engine/plugin.js';

/** What the network would say about one domain; a domain not listed has null facts (as a literal has). */
export interface Zone {
  dns: FactValues;
  age: FactValues;
  website?: boolean | null;
}

/** The registry with dns, domain-age and website answering from `zones` (keyed by the address's domain). */
export function standInCatalog(zones: Readonly<Record<string, Zone>>): FactCatalog {
  const zoneOf = (email: string): Zone | undefined => zones[email.slice(email.lastIndexOf('@') + 1).toLowerCase()];
  const standIn = (real: Plugin, answer: (zone: Zone) => FactValues): Plugin => ({
    ...real,
    description: `stand-in for ${real.id}`,
    needs: [],
    io: false,
    run: (ctx) => {
      const zone = zoneOf(ctx.input.email);
      return zone ? answer(zone) : {};
    },
  });
  const standIns = new Map<string, Plugin>([
    [dns.id, standIn(dns, (zone) => zone.dns)],
    [domainAge.id, standIn(domainAge, (zone) => zone.age)],
    [website.id, standIn(website, (zone) => ({ has_website: zone.website ?? null }))],
  ]);
  return new FactCatalog(registry.map((plugin) => standIns.get(plugin.id) ?? plugin));
}
