// Allowed domains: is the address's domain on the project's own list of permitted domains (check options)?
import type { CheckOptions, FactValues, Plugin } from '../../src/engine/plugin.js';
import { asciiDomainOf } from '../plugin-data.js';

interface AllowList {
  domains: ReadonlySet<string>;
  includeSubdomains: boolean;
}

/** One set per options object: a policy's options are compiled once, so the set is built once per policy. */
const allowLists = new WeakMap<CheckOptions, AllowList | null>();

function allowList(options: CheckOptions): AllowList | null {
  let list = allowLists.get(options);
  if (list === undefined) {
    const { domains, include_subdomains: includeSubdomains } = options;
    list = Array.isArray(domains)
      ? {
          domains: new Set(domains.filter((d): d is string => typeof d === 'string').map((d) => d.toLowerCase())),
          includeSubdomains: includeSubdomains !== false,
        }
      : null;
    allowLists.set(options, list);
  }
  return list;
}

const MAX_DOMAIN_LENGTH = 253;

/** `domain` is listed, or (with subdomains) one of its parents is. A name too long for the DNS never is. */
function isAllowed(domain: string, list: AllowList): boolean {
  if (domain.length > MAX_DOMAIN_LENGTH) return false;
  if (list.domains.has(domain)) return true;
  if (!list.includeSubdomains) return false;
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', dot + 1)) {
    if (list.domains.has(domain.slice(dot + 1))) return true;
  }
  return false;
}

const plugin: Plugin = {
  id: 'allowed-domains',
  description: "Whether the address's domain is on the project's list of permitted domains (the specific_domains check's options).",
  steps: ['specific_domains'],
  codes: {
    not_in_specific_domains: { error: 'classification' },
  },
  facts: {
    in_specific_domains: {
      type: 'boolean',
      description: 'The domain (or, with include_subdomains, a parent of it) is in the specific_domains list; null without a domain or a list.',
      requiresCheck: 'specific_domains',
    },
  },
  checks: {
    specific_domains: {
      description: 'The domain is not in the list of permitted domains.',
      when: { fact: 'in_specific_domains', operator: 'equal', value: false },
      code: 'not_in_specific_domains',
      options: {
        type: 'object',
        properties: {
          domains: {
            type: 'array',
            minItems: 1,
            maxItems: 10000,
            description: 'Permitted domains: lower-case, ASCII (punycode for an IDN), no trailing dot.',
            items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9-]+(\\.[a-z0-9-]+)*$' },
          },
          include_subdomains: { type: 'boolean', description: 'A subdomain of a listed domain is permitted too (default true).' },
        },
        required: ['domains'],
        additionalProperties: false,
      },
      defaults: { include_subdomains: true },
    },
  },
  needs: ['structure', 'idn'],
  async run(ctx): Promise<FactValues> {
    const domain = await ctx.fact('domain');
    const list = allowList(ctx.options('specific_domains'));
    if (typeof domain !== 'string' || domain === '' || list === null) return {};
    // A domain that is no host name (an address literal, an empty label) is on no list of permitted domains.
    const name = await asciiDomainOf(ctx);
    return { in_specific_domains: name !== null && isAllowed(name, list) };
  },
};

export default plugin;
