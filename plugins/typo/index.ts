// Domain typos: gmial.com -> gmail.com, hotmial.co.uk -> hotmail.co.uk; never a real provider or school domain.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { asciiDomainOf, dataLists } from '../plugin-data.js';
import { readPopularDomains } from './popular-domains.js';
import { edits, TypoSuggester } from './suggest.js';

const popular = readPopularDomains();
const suggester = new TypoSuggester(popular);

const plugin: Plugin = {
  id: 'typo',
  description: 'Suggests the popular mailbox domain a domain is a near miss of (gmial.com -> gmail.com), and the corrected address.',
  steps: ['typo_detection'],
  facts: {
    has_typo_mismatch: {
      type: 'boolean',
      description: 'The domain is a near miss of a popular mailbox domain and not itself a known provider, school or popular domain.',
    },
    typo_edits: {
      type: 'integer',
      description: 'Edits (Damerau-Levenshtein, a swap counts one) between the domain and suggested_domain: 1 or 2; null when no typo.',
    },
    suggested_domain: { type: 'string', description: 'The popular domain the address probably meant; null when no typo.' },
    corrected_email: {
      type: 'string',
      description: 'The local part as written, "@", and the suggested domain; null when no typo.',
      expose: 'result',
    },
  },
  checks: {
    typo_detection: {
      description: 'The domain looks like a typo of a popular mailbox domain.',
      when: { fact: 'has_typo_mismatch', operator: 'equal', value: true },
      code: 'domain_typo_detected',
      checkedType: 'typo_detection',
    },
  },
  needs: ['structure', 'idn', 'free-provider', 'education'],
  data: dataLists('typo', [{ file: 'popular-domains.txt', entries: popular.length }]),
  async run(ctx): Promise<FactValues> {
    const local = await ctx.fact<string>('local_part');
    const ascii = await asciiDomainOf(ctx);
    if ((await ctx.fact('valid_address_format')) !== true || typeof local !== 'string' || ascii === null) return {};
    const real = suggester.isPopular(ascii) || (await ctx.fact('is_free_provider_domain')) === true || (await ctx.fact('is_education_domain')) === true;
    const suggested = real ? null : suggester.suggest(ascii);
    return {
      has_typo_mismatch: suggested !== null,
      typo_edits: suggested === null ? null : edits(ascii, suggested, Infinity),
      suggested_domain: suggested,
      corrected_email: suggested === null ? null : `${local}@${suggested}`,
    };
  },
};

export default plugin;
