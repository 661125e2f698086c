// Top-level domain validity and the registrable domain, from the Public Suffix List's ICANN section.
import { parse } from 'tldts';
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { asciiDomain } from '../../src/host-name.js';
import { formatCheck } from '../fact-checks.js';
import { dataLists } from '../plugin-data.js';

// ICANN section only: private entries (github.io, blogspot.com) would hide that user.github.io is a
// subdomain of a shared host, and would make names no registry delegates count as valid TLDs.
// Hostname validation is off so a wildcard or underscore label still yields the TLD.
const PARSE_OPTIONS = {
  allowIcannDomains: true,
  allowPrivateDomains: false,
  detectIp: true,
  extractHostname: false,
  validateHostname: false,
} as const;

/** Characters of a host name, plus the underscore and wildcard that real (if invalid) addresses carry. */
const HOST_CHARACTERS = /^[a-z0-9._*-]+$/;

/**
 * Top-level names reserved so that no mailbox is ever there (README, "Special-use names"): RFC 6761
 * (`test`, `example`, `invalid`, `localhost`), RFC 6762 (`local`), RFC 7686 (`onion`), RFC 9476 (`alt`),
 * ICANN's `internal` (2024), and `arpa` (RFC 3172: infrastructure, no mail). The Public Suffix List
 * names `onion` and `arpa` in its ICANN section all the same.
 */
const SPECIAL_USE = new Set(['alt', 'arpa', 'example', 'internal', 'invalid', 'local', 'localhost', 'onion', 'test']);

const plugin: Plugin = {
  id: 'tld',
  description: 'Whether the top-level domain is delegated (ICANN section of the Public Suffix List), and the public suffix and registrable domain.',
  steps: ['tld'],
  codes: {
    invalid_tld: { error: 'format' },
  },
  facts: {
    has_valid_tld: {
      type: 'boolean',
      description: 'The top-level domain is in the ICANN section of the Public Suffix List and is no special-use name (tld_special_use).',
    },
    tld_special_use: {
      type: 'string',
      description:
        'The top-level domain when it is a special-use name where no mailbox is (test, example, invalid, localhost, local, onion, alt, internal, arpa); null otherwise.',
    },
    tld: { type: 'string', description: 'Last label of the domain, ASCII (punycode) form.' },
    public_suffix: { type: 'string', description: 'Longest matching ICANN public suffix (the TLD itself when no rule matches), ASCII form.' },
    registrable_domain: {
      type: 'string',
      description: 'Public suffix plus one label (eTLD+1), ASCII form; null when the domain is itself a public suffix.',
    },
  },
  checks: {
    tld: formatCheck(
      'has_valid_tld',
      'invalid_tld',
      'The top-level domain is not an ICANN-delegated one, or is a special-use name (e.g. .invalidtld, .local, .onion, a single-label host).',
      false,
    ),
  },
  needs: ['structure'],
  // tldts ships the list as a compiled trie and cannot list or count its rules.
  data: dataLists('tld', [{ file: 'public-suffix-list', entries: null }]),
  async run(ctx): Promise<FactValues> {
    const domain = await ctx.fact('domain');
    const literal = await ctx.fact('domain_literal');
    if (typeof domain !== 'string' || domain === '' || literal !== null) return {};
    const ascii = asciiDomain(domain);
    if (ascii === null || !HOST_CHARACTERS.test(ascii)) return {};
    const parsed = parse(ascii, PARSE_OPTIONS);
    if (parsed.isIp === true || !parsed.publicSuffix) return {};
    const tld = parsed.publicSuffix.slice(parsed.publicSuffix.lastIndexOf('.') + 1);
    const specialUse = SPECIAL_USE.has(tld);
    return {
      has_valid_tld: parsed.isIcann === true && !specialUse,
      tld_special_use: specialUse ? tld : null,
      tld,
      public_suffix: parsed.publicSuffix,
      registrable_domain: parsed.domain,
    };
  },
};

export default plugin;
