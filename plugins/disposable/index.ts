// Disposable (throwaway) mailbox providers: a curated list matched on the domain and its parents,
// with the project's own additions and exemptions; privacy relays and big providers are never flagged.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { lookupNames, matchListed, PROJECT_LISTS_DEFAULTS, projectListsSchema } from '../listed-domain.js';
import { readList } from '../plugin-data.js';

const LISTED = readList('disposable', 'domains.txt');
const NEVER_DISPOSABLE = readList('disposable', 'never-disposable.txt');

const plugin: Plugin = {
  id: 'disposable',
  description: "Flags domains of disposable (throwaway) mailbox providers, from a curated list plus the project's additions and exemptions.",
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
      options: projectListsSchema('disposable'),
      defaults: PROJECT_LISTS_DEFAULTS,
    },
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    const names = await lookupNames(ctx);
    if (names === null) return {};
    const matched = matchListed(names, ctx.options('disposable_domain'), LISTED, NEVER_DISPOSABLE);
    return { is_disposable_domain: matched !== null, disposable_match: matched };
  },
};

export default plugin;
