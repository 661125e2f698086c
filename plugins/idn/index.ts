// Internationalised addresses: non-ASCII text, punycode labels, and script mixing (homograph lures).
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { isAscii, toAsciiForm, unicodeDomain, withAsciiFullStops } from '../../src/host-name.js';
import { formatCheck } from '../fact-checks.js';
import { isMixed, scriptsOf } from './scripts.js';

/**
 * The domain as the caller wrote it (structure lower-cases, which can fold a non-ASCII K, U+212A, to ASCII),
 * its ideographic full stops as '.' as structure has them: they separate labels, they are no character of one.
 */
function writtenDomain(email: string): string {
  return withAsciiFullStops(email.slice(email.lastIndexOf('@') + 1));
}

interface DomainForms {
  hasPunycode: boolean;
  /** Whether punycode_email, punycode_value and unicode_domain apply. */
  applicable: boolean;
  ascii: string | null;
  unicode: string | null;
  /** Labels to judge for script mixing: decoded where possible. */
  labels: string[];
}

/**
 * `written` is the domain as typed: UTS #46 does the case folding (JavaScript's toLowerCase would
 * turn a final Σ into ς, another A-label).
 */
function domainForms(domain: string, written: string, internationalized: boolean): DomainForms {
  const hasPunycode = domain.split('.').some((label) => label.startsWith('xn--'));
  const applicable = internationalized || hasPunycode;
  const decoded = unicodeDomain(written);
  return {
    hasPunycode,
    applicable,
    ascii: applicable ? toAsciiForm(written) : null,
    unicode: applicable && !decoded.error ? decoded.domain : null,
    labels: decoded.domain.split('.'),
  };
}

function mixedScripts(parts: readonly string[]): string | null {
  const found = new Set<string>();
  for (const part of parts) {
    const scripts = scriptsOf(part);
    if (isMixed(scripts)) for (const script of scripts) found.add(script);
  }
  return found.size === 0 ? null : [...found].sort().join('+');
}

/** idnFacts of an all-ASCII address with a domain and no `xn--` in it. */
const PLAIN_ASCII: Readonly<FactValues> = {
  is_internationalized: false,
  has_punycode: false,
  has_mixed_script: false,
  mixed_script: null,
  punycode_email: null,
  punycode_value: null,
  unicode_domain: null,
};

const plugin: Plugin = {
  id: 'idn',
  description: 'Detects internationalised addresses, punycode domain labels and mixed-script labels, and gives the punycode and Unicode forms of the domain.',
  steps: ['internationalized_email', 'punycode_email', 'mixed_script_email'],
  codes: {
    email_is_internationalized: { error: 'internationalisation' },
    email_contains_punycode: { error: 'internationalisation' },
    email_is_mixed_script: { error: 'internationalisation' },
  },
  facts: {
    is_internationalized: { type: 'boolean', description: 'The local part or the domain contains a non-ASCII character.' },
    has_punycode: { type: 'boolean', description: 'A domain label starts with xn-- (an ASCII-encoded IDN label).' },
    has_mixed_script: {
      type: 'boolean',
      description: 'The local part or one domain label mixes scripts (e.g. Latin with Cyrillic); Japanese, Korean and Chinese mixes are not.',
    },
    mixed_script: { type: 'string', description: 'Scripts of the mixed parts, sorted and joined with "+" (e.g. Cyrillic+Latin); null when not mixed.' },
    punycode_email: {
      type: 'string',
      description: 'The address with its domain in ASCII (punycode) form, when the domain is internationalised or has punycode.',
      expose: 'result',
    },
    punycode_value: { type: 'string', description: 'ASCII (punycode) form of the domain, when it is internationalised or has punycode.' },
    unicode_domain: { type: 'string', description: 'Unicode form of the domain, when it is internationalised or has punycode and decodes.' },
  },
  checks: {
    internationalized_email: formatCheck('is_internationalized', 'email_is_internationalized', 'The address contains non-ASCII characters.'),
    punycode_email: formatCheck('has_punycode', 'email_contains_punycode', 'The domain has a punycode (xn--) label.'),
    mixed_script_email: formatCheck(
      'has_mixed_script',
      'email_is_mixed_script',
      'The local part or a domain label mixes writing systems, as homograph lures do.',
    ),
  },
  needs: ['structure'],
  async run(ctx) {
    const local = await ctx.fact('local_part');
    const domain = await ctx.fact('domain');
    const literal = await ctx.fact('domain_literal');
    return idnFacts(ctx.input.email, local, domain, literal);
  },
};

function idnFacts(email: string, local: unknown, domain: unknown, literal: unknown): FactValues {
  const hasLocal = typeof local === 'string';
  const hasDomain = typeof domain === 'string' && domain !== '';
  if (!hasLocal && !hasDomain) return {};
  const localInternationalized = hasLocal && !isAscii(local);
  if (!hasDomain || literal !== null) {
    const mixed = hasLocal ? mixedScripts([local]) : null;
    return {
      is_internationalized: localInternationalized,
      has_mixed_script: hasLocal ? mixed !== null : null,
      mixed_script: mixed,
    };
  }
  // Nearly every address: all ASCII and no ACE label, so one script (ASCII letters are Latin, the rest Common)
  // and no other form of the domain; the same facts as below, without decoding the domain and testing scripts.
  if (isAscii(email) && !domain.includes('xn--')) return { ...PLAIN_ASCII };
  const written = writtenDomain(email);
  const domainInternationalized = !isAscii(domain) || !isAscii(written);
  const forms = domainForms(domain, written, domainInternationalized);
  const mixed = mixedScripts(hasLocal ? [local, ...forms.labels] : forms.labels);
  return {
    is_internationalized: localInternationalized || domainInternationalized,
    has_punycode: forms.hasPunycode,
    has_mixed_script: mixed !== null,
    mixed_script: mixed,
    punycode_email: hasLocal && forms.ascii !== null ? `${local}@${forms.ascii}` : null,
    punycode_value: forms.ascii,
    unicode_domain: forms.unicode,
  };
}

export default plugin;
