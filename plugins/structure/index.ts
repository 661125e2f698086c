// Address structure: is the input an RFC 5321/5322 mailbox, and what are its local part and domain.
import type { Plugin } from '../../src/engine/plugin.js';
import { formatCheck } from '../fact-checks.js';
import { parseAddress } from './parse.js';

const plugin: Plugin = {
  id: 'structure',
  description: 'Parses the address as an RFC 5321/5322 mailbox (UTF-8 allowed per RFC 6531) and splits it into local part and domain.',
  steps: ['structure'],
  codes: {
    invalid_address_format: { error: 'format' },
  },
  facts: {
    valid_address_format: { type: 'boolean', description: 'The address is a syntactically valid mailbox.' },
    local_part: {
      type: 'string',
      description: 'The local part as written (quotes included), even when the syntax is invalid; null without an @.',
    },
    domain: {
      type: 'string',
      description:
        'The part after the separating @, lower-cased, ideographic full stops (U+3002, U+FF0E, U+FF61) read as dots, even when the syntax is invalid; null without an @.',
    },
    domain_literal: {
      type: 'string',
      values: ['ipv4', 'ipv6'],
      description: 'ipv4 or ipv6 when the domain is a valid address literal ([1.2.3.4], [IPv6:…]).',
    },
  },
  checks: {
    structure: formatCheck('valid_address_format', 'invalid_address_format', 'The address is not a syntactically valid mailbox.', false),
  },
  needs: [],
  async run(ctx) {
    const email: unknown = ctx.input.email;
    if (typeof email !== 'string') return {};
    const parsed = parseAddress(email);
    return {
      valid_address_format: parsed.valid,
      local_part: parsed.localPart,
      domain: parsed.domain,
      domain_literal: parsed.domainLiteral,
    };
  },
};

export default plugin;
