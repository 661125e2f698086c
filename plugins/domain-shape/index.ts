// The shape of the registrable domain: a machine-generated-looking name (xkqzv7, q8w3ejd) on a top-level
// domain over-represented among throwaway mail domains. A risk signal, not a check: such a domain is
// unknown to every list on the day it is registered, and a person can still own one.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { dataLists, readList } from '../plugin-data.js';
import { looksGenerated } from './generated-label.js';

const abusedTlds = readList('domain-shape', 'abused-tlds.txt');

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
  data: dataLists('domain-shape', [{ file: 'abused-tlds.txt', entries: abusedTlds.size }]),
  async run(ctx): Promise<FactValues> {
    if ((await ctx.fact('valid_address_format')) !== true) return {};
    const tld = await ctx.fact('tld');
    const suffix = await ctx.fact('public_suffix');
    const registrable = await ctx.fact('registrable_domain');
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
  },
};

export default plugin;
