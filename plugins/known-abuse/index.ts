// Domains known as sources of abuse or spam: a shipped list (empty for now, see README) matched on the
// domain and its parents, plus the project's own additions and exemptions.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { lookupNames, matchListed, PROJECT_LISTS_DEFAULTS, projectListsSchema } from '../listed-domain.js';
import { readList } from '../plugin-data.js';

const LISTED = readList('known-abuse', 'domains.txt');

const plugin: Plugin = {
  id: 'known-abuse',
  description: "Flags domains known as sources of abuse or spam, from a shipped list plus the project's additions and exemptions.",
  steps: ['known_abuse_domain'],
  facts: {
    is_known_abuse_domain: {
      type: 'boolean',
      description: 'The domain or a parent up to the registrable domain is a known abuse or spam source.',
      expose: 'flag',
    },
    known_abuse_match: { type: 'string', description: 'The listed (or project-added) domain that matched; null when not listed.' },
  },
  checks: {
    known_abuse_domain: {
      description: "The domain is a known source of abuse or spam (shipped list and the project's additions).",
      when: { fact: 'is_known_abuse_domain', operator: 'equal', value: true },
      checkedType: 'known_abuse_domain',
      options: projectListsSchema('abuse sources'),
      defaults: PROJECT_LISTS_DEFAULTS,
    },
  },
  needs: ['structure', 'idn', 'tld'],
  async run(ctx): Promise<FactValues> {
    const names = await lookupNames(ctx);
    if (names === null) return {};
    const matched = matchListed(names, ctx.options('known_abuse_domain'), LISTED);
    return { is_known_abuse_domain: matched !== null, known_abuse_match: matched };
  },
};

export default plugin;
