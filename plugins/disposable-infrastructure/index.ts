// Rotating generator domains: a throwaway service registers a fresh domain every few days and points its MX
// at the mail hosts it already runs. An MX host under a known disposable service's domain (the disposable
// plugin's list) gives the new domain away before any list has it. One MX lookup, only with network checks on.
import type { FactValues, MxRecord, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { disposableDomains as disposableServices } from '../disposable-domains.js';
import { asciiDomainOf } from '../plugin-data.js';

const isUnder = (name: string, parent: string) => name === parent || name.endsWith(`.${parent}`);

/** The listed service domain an MX host is, or lies under; null when none. Linear in the host's labels. */
function serviceOf(host: string): string | null {
  for (let name = host; name.includes('.'); name = name.slice(name.indexOf('.') + 1)) {
    if (disposableServices.has(name)) return name;
  }
  return null;
}

/**
 * The first MX host that belongs to a listed disposable service other than the address's own domain: mail
 * routed to the domain's own hosts (mailinator.com → mail.mailinator.com) is no shared infrastructure.
 */
export function sharedDisposableHost(records: readonly MxRecord[], own: string): string | null {
  for (const { exchange } of records) {
    const host = exchange.toLowerCase().replace(/\.$/, '');
    const service = serviceOf(host);
    if (service !== null && !isUnder(own, service) && !isUnder(service, own)) return host;
  }
  return null;
}

const plugin: Plugin = {
  id: 'disposable-infrastructure',
  description: "Flags a domain whose mail goes to a known disposable service's MX hosts: a rotating throwaway domain not on any list yet.",
  steps: [],
  io: true,
  network: true,
  facts: {
    disposable_mx_host: {
      type: 'string',
      description: "The domain's MX host that belongs to a listed disposable service (another domain than the address's); null when none or unknown.",
    },
    disposable_infrastructure_signal: {
      type: 'string',
      description:
        'detected: an MX host belongs to a listed disposable service; none: no MX host does (or no MX); null when unknown (network checks off, lookup failed). A risk signal (risk: disposable_infrastructure).',
      values: ['detected', 'none'],
    },
  },
  checks: {},
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    if ((await ctx.fact('valid_address_format')) !== true) return {};
    const domain = await asciiDomainOf(ctx, 'dns');
    if (domain === null || !ctx.network.enabled) return {};
    return sharedHostFacts(ctx, domain);
  },
};

async function sharedHostFacts(ctx: PluginContext, domain: string): Promise<FactValues> {
  const registrable = await ctx.fact<string>('registrable_domain');
  const answer = await ctx.network.dns.mx(domain).catch(() => null);
  if (answer === null || answer.status === 'error') return {};
  const host = answer.status === 'ok' ? sharedDisposableHost(answer.records, typeof registrable === 'string' ? registrable : domain) : null;
  return { disposable_mx_host: host, disposable_infrastructure_signal: host === null ? 'none' : 'detected' };
}

export default plugin;
