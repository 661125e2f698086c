// The shape of the registrable domain: a machine-generated-looking name (xkqzv7, q8w3ejd) on a top-level
// domain over-represented among throwaway mail domains. A risk signal, not a check: such a domain is
// unknown to every list on the day it is registered, and a person can still own one.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { dataLists, readList } from '../plugin-data.js';
import { looksGenerated } from './generated-label.js';

const abusedTlds = readList('domain-shape', 'abused-tlds.txt');

const DOMAIN_FACTS = ['tld', 'public_suffix', 'registrable_domain'] as const;

const plugin: Plugin = {
  id: 'domain-shape',
  description:
    'Flags a registrable domain whose own label looks machine-generated (no vowels, digits woven through letters, long consonant runs) on a TLD over-represented among throwaway domains.',
  steps: [],
  facts: {
    looks_generated_domain: {
      type: 'boolean',
      description: 'The registrable domain less its public suffix (xkqzv7 of xkqzv7.xyz) looks machine-generated; null when there is no registrable domain.',
    },
    abused_tld: {
      type: 'boolean',
      description: 'The top-level domain is on data/abused-tlds.txt (over-represented among throwaway mail domains); null when there is no TLD.',
    },
    random_domain_signal: {
      type: 'string',
      description:
        'detected: looks_generated_domain and abused_tld are both true; none otherwise; null when either is unknown. A risk signal (risk: random_domain).',
      values: ['detected', 'none'],
    },
  },
  checks: {},
  needs: ['structure', 'tld'],
  pure: true,
  data: dataLists('domain-shape', [{ file: 'abused-tlds.txt', entries: abusedTlds.size }]),
  run(ctx) {
    return ctx.withFacts(['valid_address_format'], ([valid]) => {
      if (valid !== true) return {};
      return ctx.withFacts(DOMAIN_FACTS, ([tld, suffix, registrable]): FactValues => {
        const abused = typeof tld === 'string' ? abusedTlds.has(tld) : null;
        const generated =
          typeof registrable === 'string' && typeof suffix === 'string' && registrable.endsWith(`.${suffix}`)
            ? looksGenerated(registrable.slice(0, -suffix.length - 1))
            : null;
        return {
          looks_generated_domain: generated,
          abused_tld: abused,
          random_domain_signal: generated === null || abused === null ? null : generated && abused ? 'detected' : 'none',
        };
      });
    });
  },
};

export default plugin;
