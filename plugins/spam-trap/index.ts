// Domains associated with spam traps (addresses that exist only to catch senders of unsolicited mail): a
// shipped list (empty for now, see README) matched on the domain and its parents, plus the project's lists.
import type { CheckOptions, FactValues, Plugin } from '../../src/engine/plugin.js';
import { domainAndParents, readList } from '../plugin-data.js';

const LISTED = readList('spam-trap', 'domains.txt');

const MAX_ENTRIES = 10_000;
const domainListSchema = (description: string) => ({
  type: 'array',
  maxItems: MAX_ENTRIES,
  description,
  items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$' },
});

interface ProjectLists {
  add: ReadonlySet<string>;
  exempt: ReadonlySet<string>;
}

// Keyed by the options object, which a compiled policy keeps for its lifetime: sets are built once per policy.
const projectListsByOptions = new WeakMap<CheckOptions, ProjectLists>();

function domainSet(value: unknown): Set<string> {
  if (!Array.isArray(value)) return new Set();
  return new Set(value.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.toLowerCase()));
}

function projectLists(options: CheckOptions): ProjectLists {
  let lists = projectListsByOptions.get(options);
  if (!lists) {
    lists = { add: domainSet(options.add), exempt: domainSet(options.exempt) };
    projectListsByOptions.set(options, lists);
  }
  return lists;
}

/** The matching entry: project entries first, most specific name first (exempt wins a tie), then the shipped list. */
function match(names: readonly string[], lists: ProjectLists): string | null {
  for (const name of names) {
    if (lists.exempt.has(name)) return null;
    if (lists.add.has(name)) return name;
  }
  return names.find((name) => LISTED.has(name)) ?? null;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const plugin: Plugin = {
  id: 'spam-trap',
  description: 'Flags domains associated with spam traps, from a shipped list plus the project\'s additions and exemptions.',
  steps: ['spam_trap_domain'],
  facts: {
    is_spam_trap_domain: {
      type: 'boolean',
      description: 'The domain or a parent up to the registrable domain is associated with spam traps.',
      expose: 'flag',
    },
    spam_trap_match: { type: 'string', description: 'The listed (or project-added) domain that matched; null when not listed.' },
  },
  checks: {
    spam_trap_domain: {
      description: 'The domain is associated with spam traps (shipped list and the project\'s additions).',
      when: { fact: 'is_spam_trap_domain', operator: 'equal', value: true },
      checkedType: 'spam_trap_domain',
      options: {
        type: 'object',
        properties: {
          add: domainListSchema('Domains the project treats as spam-trap domains, with their subdomains (lower-case, punycode for IDN).'),
          exempt: domainListSchema('Domains never treated as spam-trap domains, with their subdomains (lower-case, punycode for IDN).'),
        },
        additionalProperties: false,
      },
      defaults: { add: [], exempt: [] },
    },
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    const valid = await ctx.fact<boolean>('valid_address_format');
    const domain = await ctx.fact<string>('domain');
    const literal = await ctx.fact<string>('domain_literal');
    if (valid !== true || typeof domain !== 'string' || domain === '' || literal !== null || domain.startsWith('[')) return {};
    const punycode = await ctx.fact<string>('punycode_value');
    const ascii = typeof punycode === 'string' ? punycode : domain;
    if (!isAscii(ascii)) return {};
    const registrable = await ctx.fact<string>('registrable_domain');
    const names = domainAndParents(ascii, typeof registrable === 'string' ? registrable : null);
    const matched = match(names, projectLists(ctx.options('spam_trap_domain')));
    return { is_spam_trap_domain: matched !== null, spam_trap_match: matched };
  },
};

export default plugin;
