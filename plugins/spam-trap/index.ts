// Domains associated with spam traps (addresses that exist only to catch senders of unsolicited mail): a
// shipped list (empty for now, see README) matched on the domain and its parents, plus the project's lists.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { lookupNames, matchListed, PROJECT_LISTS_DEFAULTS, projectListsSchema } from '../listed-domain.js';
import { readList } from '../plugin-data.js';

const LISTED = readList('spam-trap', 'domains.txt');

const plugin: Plugin = {
  id: 'spam-trap',
  description: "Flags domains associated with spam traps, from a shipped list plus the project's additions and exemptions.",
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
      description: "The domain is associated with spam traps (shipped list and the project's additions).",
      when: { fact: 'is_spam_trap_domain', operator: 'equal', value: true },
      checkedType: 'spam_trap_domain',
      options: projectListsSchema('spam-trap domains'),
      defaults: PROJECT_LISTS_DEFAULTS,
    },
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    const names = await lookupNames(ctx);
    if (names === null) return {};
    const matched = matchListed(names, ctx.options('spam_trap_domain'), LISTED);
    return { is_spam_trap_domain: matched !== null, spam_trap_match: matched };
  },
};

export default plugin;
