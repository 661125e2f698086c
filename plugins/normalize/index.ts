// Normalised forms of an address: the base that velocity by email groups by, the lower-cased address
// that per-IP velocity counts, and the "without_*" forms of the intelligence response. The fifth form,
// without_typo_mismatch, is the typo plugin's corrected_email: verify must not pay for typo detection to
// store a base.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { dotlessProvider, lowerCase, withoutDots, withoutPlusTag } from './forms.js';

/** `form`, or null when it is the address itself (the transformation changed nothing). */
const changed = (form: string, address: string): string | null => (form === address ? null : form);

const plugin: Plugin = {
  id: 'normalize',
  description: 'Gives the normalised forms of an address: its base (velocity by email), its lower-cased form (velocity by IP) and the without_* forms.',
  steps: [],
  facts: {
    base_email: {
      type: 'string',
      description:
        'Lower-cased (Unicode, NFC) local part without plus tag (and without dots on gmail.com/googlemail.com) @ the ASCII domain (googlemail.com → gmail.com); null when the address is invalid.',
    },
    email_lower: {
      type: 'string',
      description: 'The whole input lower-cased with Unicode rules (NFC), valid or not: what per-IP velocity tells addresses apart by.',
    },
    without_plus_addressing: { type: 'string', description: 'The address with its +tag removed; null when it has none or is invalid.' },
    without_dot_variations: {
      type: 'string',
      description: 'On gmail.com/googlemail.com only: the local part without dots @ gmail.com; null elsewhere, when nothing changes, or when invalid.',
    },
    without_punycode: {
      type: 'string',
      description: 'The address with its punycode (xn--) domain in Unicode; null when the domain has no punycode or is invalid.',
    },
  },
  checks: {},
  needs: ['structure', 'idn'],
  async run(ctx): Promise<FactValues> {
    const email: unknown = ctx.input.email;
    if (typeof email !== 'string' || email === '') return {};
    const emailLower = lowerCase(email);
    const valid = await ctx.fact('valid_address_format');
    const local = await ctx.fact('local_part');
    const domain = await ctx.fact('domain');
    if (valid !== true || typeof local !== 'string' || typeof domain !== 'string') return { email_lower: emailLower };
    // The domain's forms: structure's literal, idn's punycode and Unicode forms (idn runs for every valid address).
    const literalKind = await ctx.fact('domain_literal');
    const punycode = await ctx.fact('punycode_value');
    const hasPunycode = await ctx.fact('has_punycode');
    const unicode = await ctx.fact('unicode_domain');
    const address = `${local}@${domain}`;
    const literal = literalKind !== null;
    const asciiDomain = literal ? domain : typeof punycode === 'string' ? punycode : lowerCase(domain);
    const untagged = withoutPlusTag(local);
    const dotless = literal ? null : dotlessProvider(asciiDomain);
    const baseLocal = lowerCase(untagged ?? local);
    const unicodeDomain = hasPunycode === true ? unicode : null;
    return {
      base_email: dotless === null ? `${baseLocal}@${asciiDomain}` : `${withoutDots(baseLocal)}@${dotless}`,
      email_lower: emailLower,
      without_plus_addressing: untagged === null ? null : `${untagged}@${domain}`,
      without_dot_variations: dotless === null ? null : changed(`${withoutDots(local)}@${dotless}`, address),
      without_punycode: typeof unicodeDomain === 'string' ? `${local}@${unicodeDomain}` : null,
    };
  },
};

export default plugin;
