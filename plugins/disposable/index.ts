// Disposable (throwaway) mailbox providers: a curated list matched on the domain and its parents,
// with the project's own additions and exemptions; privacy relays and big providers are never flagged.
import type { CheckOptions, FactValues, Plugin } from '../../src/engine/plugin.js';
import { domainAndParents, readList } from '../plugin-data.js';

const LISTED = readList('disposable', 'domains.txt');
const NEVER_DISPOSABLE = readList('disposable', 'never-disposable.txt');

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

interface Verdict {
  disposable: boolean;
  match: string | null;
}

const NOT_DISPOSABLE: Verdict = { disposable: false, match: null };

/** Project entries first, most specific name first (exempt wins a tie); then the never list; then the shipped list. */
function classify(names: readonly string[], lists: ProjectLists): Verdict {
  for (const name of names) {
    if (lists.exempt.has(name)) return NOT_DISPOSABLE;
    if (lists.add.has(name)) return { disposable: true, match: name };
  }
  if (names.some((name) => NEVER_DISPOSABLE.has(name))) return NOT_DISPOSABLE;
  const listed = names.find((name) => LISTED.has(name));
  return listed === undefined ? NOT_DISPOSABLE : { disposable: true, match: listed };
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const plugin: Plugin = {
  id: 'disposable',
  description: 'Flags domains of disposable (throwaway) mailbox providers, from a curated list plus the project\'s additions and exemptions.',
  steps: ['disposable_domain'],
  facts: {
    is_disposable_domain: {
      type: 'boolean',
      description: 'The domain or a parent up to the registrable domain is a disposable mailbox provider.',
      expose: 'flag',
    },
    disposable_match: { type: 'string', description: 'The listed (or project-added) domain that matched; null when not disposable.' },
  },
  checks: {
    disposable_domain: {
      description: 'The domain belongs to a disposable (temporary, throwaway) mailbox provider.',
      when: { fact: 'is_disposable_domain', operator: 'equal', value: true },
      checkedType: 'disposable_domain',
      options: {
        type: 'object',
        properties: {
          add: domainListSchema('Domains the project treats as disposable, with their subdomains (lower-case, punycode for IDN).'),
          exempt: domainListSchema('Domains the project never treats as disposable, with their subdomains (lower-case, punycode for IDN).'),
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
    const verdict = classify(names, projectLists(ctx.options('disposable_domain')));
    return { is_disposable_domain: verdict.disposable, disposable_match: verdict.match };
  },
};

export default plugin;
