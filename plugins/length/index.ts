// Length limits of RFC 5321/5322: local part 64 octets, domain 253, label 63, whole address 254.
import type { CheckOptions, CheckSpec, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { domainLengths, utf8Length } from './ascii-length.js';

const maxOption = {
  type: 'object',
  properties: { max: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};

function limitCheck(fact: string, code: string, limit: number, description: string): CheckSpec {
  return {
    description,
    when: (options: CheckOptions) => ({ fact, operator: 'greaterThan', value: options.max ?? limit }),
    code,
    checkedType: 'address_format',
    options: maxOption,
    defaults: { max: limit },
  };
}

const plugin: Plugin = {
  id: 'length',
  description: 'Lengths of the local part (UTF-8 octets), the domain and its labels (ASCII form) and the whole address.',
  steps: ['local_part_max_length', 'domain_max_length', 'total_address_length', 'label_max_length'],
  codes: {
    local_part_exceeds_max_length: { error: 'local_part' },
    domain_exceeds_max_length: { error: 'domain' },
    total_address_exceeds_max_length: { error: 'domain' },
    label_exceeds_max_length: { error: 'domain' },
  },
  facts: {
    local_part_length: { type: 'integer', description: 'Local part length in UTF-8 octets, quotes included.' },
    domain_length: { type: 'integer', description: 'Domain length in its ASCII (punycode) form.' },
    total_length: { type: 'integer', description: 'Local part octets + 1 + domain length.' },
    longest_label_length: {
      type: 'integer',
      description: 'Length of the longest domain label in ASCII form; null for an address literal.',
    },
    within_length_limits: {
      type: 'boolean',
      description:
        "Every length is within the maximum of its check (the check's max option, RFC 5321/1035 by default: local part 64, domain 253, address 254, label 63); null when the address has no parts.",
    },
  },
  checks: {
    local_part_max_length: limitCheck('local_part_length', 'local_part_exceeds_max_length', 64, 'The local part is longer than max octets (RFC 5321: 64).'),
    domain_max_length: limitCheck(
      'domain_length',
      'domain_exceeds_max_length',
      253,
      'The domain is longer than max characters in ASCII form (RFC 5321/1035: 253).',
    ),
    total_address_length: limitCheck(
      'total_length',
      'total_address_exceeds_max_length',
      254,
      'The address is longer than max octets (RFC 5321 path limit: 254).',
    ),
    label_max_length: limitCheck('longest_label_length', 'label_exceeds_max_length', 63, 'A domain label is longer than max octets (RFC 1035: 63).'),
  },
  needs: ['structure'],
  async run(ctx) {
    return lengthFacts(ctx, await ctx.fact('local_part'), await ctx.fact('domain'));
  },
};

function lengthFacts(ctx: PluginContext, localPart: unknown, domain: unknown): FactValues {
  const local = typeof localPart === 'string' ? utf8Length(localPart) : null;
  const lengths = typeof domain === 'string' ? domainLengths(domain) : null;
  const within = (check: string, length: number | null | undefined) => length == null || length <= (ctx.options(check).max as number);
  return {
    within_length_limits:
      local === null || lengths === null
        ? null
        : within('local_part_max_length', local) &&
          within('domain_max_length', lengths.domain) &&
          within('total_address_length', local + 1 + lengths.domain) &&
          within('label_max_length', lengths.longestLabel),
    local_part_length: local,
    domain_length: lengths?.domain ?? null,
    total_length: local !== null && lengths !== null ? local + 1 + lengths.domain : null,
    longest_label_length: lengths?.longestLabel ?? null,
  };
}

export default plugin;
