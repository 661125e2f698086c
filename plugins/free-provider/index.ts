// Free (consumer mailbox) provider domains: gmail.com, outlook.com, yahoo.co.jp, … and the provider's key.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { factCheck } from '../fact-checks.js';
import { asciiDomainOf, dataLists } from '../plugin-data.js';
import { findProvider, indexProviders, readProviders } from './providers.js';

const providers = indexProviders(readProviders());

const plugin: Plugin = {
  id: 'free-provider',
  description: 'Whether the domain is one of a free (consumer) mailbox provider, and which provider.',
  steps: ['free_provider_domain'],
  codes: {
    domain_is_free_provider: { error: 'classification', warning: 'the domain is a free mailbox provider (gmail.com, outlook.com), not a company or school' },
  },
  facts: {
    is_free_provider_domain: {
      type: 'boolean',
      description:
        'The domain (in ASCII form) is a domain of a known free mailbox provider, or a subdomain where the provider documents subdomain addresses (nc.rr.com).',
      expose: 'flag',
    },
    free_provider: {
      type: 'string',
      description: 'Key of the provider (lower case with underscores, e.g. gmail, outlook, yahoo_jp, gmx_de); null when not free.',
    },
    free_provider_group: {
      type: 'string',
      description: 'common for the big consumer webmail services, rare for the long tail; null when not free.',
      values: ['common', 'rare'],
    },
  },
  checks: {
    free_provider_domain: factCheck(
      'free_provider_domain',
      'is_free_provider_domain',
      'domain_is_free_provider',
      'The domain belongs to a free mailbox provider.',
    ),
  },
  needs: ['structure', 'idn'],
  // Entries: domains (each names its provider key).
  data: dataLists('free-provider', [{ file: 'providers.json', entries: providers.byDomain.size }]),
  async run(ctx): Promise<FactValues> {
    const domain = await asciiDomainOf(ctx);
    if (domain === null) return {};
    const provider = findProvider(providers, domain);
    return {
      is_free_provider_domain: provider !== undefined,
      free_provider: provider?.key ?? null,
      free_provider_group: provider?.group ?? null,
    };
  },
};

export default plugin;
