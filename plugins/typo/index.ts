// Domain typos: gmial.com -> gmail.com, hotmial.co.uk -> hotmail.co.uk, acme.cmo -> acme.com; never a real
// provider or school domain, never a delegated top-level domain.
import type { FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { hostName, toAsciiForm } from '../../src/host-name.js';
import { factCheck } from '../fact-checks.js';
import { asciiDomainOf, dataLists } from '../plugin-data.js';
import { readCommonSuffixes, readKnownDomains, readPopularDomains } from './popular-domains.js';
import { ShortNameCorrector } from './short-names.js';
import { hasRetiredTld, SuffixCorrector } from './suffix.js';
import { edits, TypoSuggester } from './suggest.js';

const popular = readPopularDomains();
const suggester = new TypoSuggester(popular);
const commonSuffixes = readCommonSuffixes();
const suffixes = new SuffixCorrector(commonSuffixes);
const knownDomains = readKnownDomains();
const shortNames = new ShortNameCorrector(popular, knownDomains);

/** The address as the user meant it: the local part as typed, the domain lower-cased as typed and in ASCII. */
interface MeantAddress {
  local: string;
  domain: string;
  ascii: string;
}

/** A plain dot-atom of ASCII atext: the one local part an address wrapped in spaces is still corrected with. */
const PLAIN_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/**
 * Surrounding spaces (a form that did not trim) make the address invalid, but not its typo: the address
 * without them, when its local part is a plain dot-atom and its domain a host name, is what was meant.
 */
function withoutSurroundingSpaces(email: string, local: string, domain: string | null): MeantAddress | null {
  if (email === email.trim() || typeof domain !== 'string') return null;
  const meantLocal = local.trimStart();
  const meantDomain = domain.trimEnd();
  const ascii = toAsciiForm(meantDomain);
  const host = ascii === null ? null : hostName(ascii, 'ldh');
  return PLAIN_LOCAL.test(meantLocal) && host !== null ? { local: meantLocal, domain: meantDomain, ascii: host } : null;
}

async function meantAddress(ctx: PluginContext): Promise<MeantAddress | null> {
  const local = await ctx.fact('local_part');
  const domain = await ctx.fact('domain');
  const valid = await ctx.fact('valid_address_format');
  if (typeof local !== 'string') return null;
  if (valid !== true) return withoutSurroundingSpaces(ctx.input.email, local, typeof domain === 'string' ? domain : null);
  const ascii = await asciiDomainOf(ctx);
  return ascii === null || typeof domain !== 'string' ? null : { local, domain, ascii };
}

/** The suggested domain in the form typed (Unicode labels kept) and in ASCII, or null. */
function suggestionFor(domain: string, ascii: string): { typed: string; ascii: string } | null {
  if (hasRetiredTld(ascii)) return null;
  const popularDomain = suggester.suggest(ascii);
  if (popularDomain !== null) return { typed: popularDomain, ascii: popularDomain };
  const shortName = shortNames.correct(ascii);
  if (shortName !== null) return { typed: shortName, ascii: shortName };
  const correction = suffixes.correct(ascii);
  if (correction === null) return null;
  const asciiLabels = ascii.split('.');
  const fixed = [...asciiLabels.slice(0, correction.kept), correction.suffix].join('.');
  // A slip in the name too (gmial.cmo): the popular domain, not the fixed typo (gmial.com).
  const popularFixed = suggester.suggest(fixed) ?? shortNames.correct(fixed);
  if (popularFixed !== null) return { typed: popularFixed, ascii: popularFixed };
  // The first labels stay as typed: structure has read the ideographic full stops as dots, so the labels are the ASCII form's.
  const typedLabels = domain.split('.');
  return { typed: [...typedLabels.slice(0, correction.kept), correction.suffix].join('.'), ascii: fixed };
}

const plugin: Plugin = {
  id: 'typo',
  description:
    'Suggests the domain an address probably meant: a popular mailbox domain it is a near miss of (gmial.com -> gmail.com), or a common suffix for a top-level domain that does not exist (acme.cmo -> acme.com).',
  steps: ['typo_detection'],
  codes: {
    domain_typo_detected: { error: 'detection', warning: 'soft form of the typo detection' },
  },
  facts: {
    has_typo_mismatch: {
      type: 'boolean',
      description:
        'The domain is a near miss of a popular mailbox domain and not itself a known provider, school or popular domain, or its top-level domain does not exist and is one edit from a common suffix.',
    },
    typo_edits: {
      type: 'integer',
      description: 'Edits (Damerau-Levenshtein, a swap counts one) between the domain and suggested_domain: 1 or 2; null when no typo.',
    },
    suggested_domain: {
      type: 'string',
      description: 'The domain the address probably meant (lower case; the labels kept from the input as typed); null when no typo.',
    },
    corrected_email: {
      type: 'string',
      description: 'The local part as written (without surrounding spaces), "@", and the suggested domain; null when no typo.',
      expose: 'result',
    },
  },
  checks: {
    typo_detection: factCheck(
      'typo_detection',
      'has_typo_mismatch',
      'domain_typo_detected',
      'The domain looks like a typo of a popular mailbox domain, or of a common top-level domain.',
    ),
  },
  needs: ['structure', 'idn', 'free-provider', 'education'],
  data: dataLists('typo', [
    { file: 'popular-domains.txt', entries: popular.length },
    { file: 'common-suffixes.txt', entries: commonSuffixes.length },
    { file: 'known-domains.txt', entries: knownDomains.length },
  ]),
  async run(ctx): Promise<FactValues> {
    const address = await meantAddress(ctx);
    if (address === null) return {};
    // A real domain has no typo: a popular one, else a free provider's, else a school's (each read only if needed).
    if (suggester.isPopular(address.ascii)) return typoFacts(address, true);
    if ((await ctx.fact('is_free_provider_domain')) === true) return typoFacts(address, true);
    return typoFacts(address, (await ctx.fact('is_education_domain')) === true);
  },
};

function typoFacts(address: MeantAddress, real: boolean): FactValues {
  const suggested = real ? null : suggestionFor(address.domain, address.ascii);
  return {
    has_typo_mismatch: suggested !== null,
    typo_edits: suggested === null ? null : edits(address.ascii, suggested.ascii, Infinity),
    suggested_domain: suggested?.typed ?? null,
    corrected_email: suggested === null ? null : `${address.local}@${suggested.typed}`,
  };
}

export default plugin;
