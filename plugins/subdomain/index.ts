// Subdomain traits: the labels left of the registrable domain (tld plugin), counted and characterised.
import type { CheckOptions, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
import { asciiDomain, unicodeDomain } from '../../src/host-name.js';
import { formatCheck } from '../fact-checks.js';
import { entropyBits } from '../label-shape.js';
import { isNumericLabel, isRandomLabel, isUuidOrHash } from './label-traits.js';

const DEFAULT_MIN_DEPTH = 4;
/** subdomain_entropy words, by the highest per-character entropy of a label (bits). */
const ENTROPY_MEDIUM = 3;
const ENTROPY_HIGH = 3.5;

/** Labels are judged in Unicode so an IDN label's punycode (xn--…) does not read as random or hyphenated. */
function unicodeLabel(label: string): string {
  if (!label.startsWith('xn--')) return label;
  const decoded = unicodeDomain(label);
  return decoded.error ? label : decoded.domain;
}

/** Labels of `domain` left of `registrable`, or null when the registrable domain is not its suffix. */
function subdomainLabels(domain: string, registrable: string): string[] | null {
  let ascii = asciiDomain(domain);
  if (ascii === null) return null;
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  if (ascii === registrable) return [];
  if (!ascii.endsWith(`.${registrable}`)) return null;
  return ascii
    .slice(0, -(registrable.length + 1))
    .split('.')
    .filter((label) => label !== '');
}

function minDepth(options: CheckOptions): number {
  const value = options.min_depth;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : DEFAULT_MIN_DEPTH;
}

function entropyWord(labels: number, bits: number): 'none' | 'low' | 'medium' | 'high' {
  if (labels === 0) return 'none';
  if (bits >= ENTROPY_HIGH) return 'high';
  return bits >= ENTROPY_MEDIUM ? 'medium' : 'low';
}

const signal = (detected: boolean): 'detected' | 'none' => (detected ? 'detected' : 'none');
const SIGNAL_VALUES = ['detected', 'none'] as const;

const plugin: Plugin = {
  id: 'subdomain',
  description: 'Counts and characterises the subdomain labels left of the registrable domain (wildcards, hyphens, numbers, UUIDs, randomness, depth).',
  steps: [
    'subdomain_wildcard',
    'subdomain_single',
    'subdomain_double',
    'subdomain_triple',
    'subdomain_deeply_nested',
    'subdomain_hyphenated',
    'subdomain_numeric',
    'subdomain_uuid_hash',
    'uuid_subdomain',
    'random_subdomain',
    'deep_nesting',
  ],
  codes: {
    subdomain_contains_wildcard: { error: 'subdomain' },
    subdomain_single: { error: 'subdomain' },
    subdomain_double: { error: 'subdomain' },
    subdomain_triple: { error: 'subdomain' },
    subdomain_deeply_nested: { error: 'subdomain' },
    subdomain_contains_hyphen: { error: 'subdomain' },
    subdomain_is_numeric: { error: 'subdomain' },
    subdomain_contains_uuid_hash: { error: 'subdomain' },
  },
  facts: {
    subdomain_count: { type: 'integer', description: 'Number of labels left of the registrable domain (0 when none).', expose: 'analyzed_data' },
    nesting_depth: {
      type: 'integer',
      description: 'Subdomain nesting depth: levels below the registrable domain (equals subdomain_count).',
      expose: 'analyzed_data',
    },
    subdomain_has_wildcard: { type: 'boolean', description: 'A subdomain label is or contains "*".' },
    subdomain_has_hyphen: { type: 'boolean', description: 'A subdomain label (in Unicode form) contains a hyphen.' },
    subdomain_has_numeric: { type: 'boolean', description: 'A subdomain label contains a decimal digit (as has_numeric means for the local part).' },
    subdomain_has_numeric_label: { type: 'boolean', description: 'A subdomain label is all digits (123.example.com).' },
    subdomain_has_uuid: { type: 'boolean', description: 'A subdomain label is a UUID or a hex hash of 16+ characters.' },
    subdomain_entropy: {
      type: 'string',
      description: 'Randomness of the most random subdomain label, from its per-character Shannon entropy.',
      values: ['none', 'low', 'medium', 'high'],
      expose: 'analyzed_data',
    },
    subdomain_entropy_bits: { type: 'number', description: 'Highest per-character Shannon entropy (bits) among the subdomain labels; 0 when none.' },
    random_subdomain_signal: {
      type: 'string',
      description: 'A subdomain label looks machine-generated (long, high entropy, few vowels or digits woven through letters).',
      values: SIGNAL_VALUES,
      expose: 'analyzed_data',
    },
    deep_nesting_risk_signal: {
      type: 'string',
      description: 'subdomain_count reaches the subdomain_deeply_nested min_depth (default 4).',
      values: SIGNAL_VALUES,
      expose: 'analyzed_data',
    },
    uuid_subdomain_risk_signal: { type: 'string', description: 'A subdomain label is a UUID or hex hash.', values: SIGNAL_VALUES, expose: 'analyzed_data' },
  },
  checks: {
    subdomain_wildcard: formatCheck('subdomain_has_wildcard', 'subdomain_contains_wildcard', 'A subdomain label is or contains a wildcard "*".'),
    subdomain_single: formatCheck('subdomain_count', 'subdomain_single', 'Exactly one subdomain label (mail.example.com).', 1),
    subdomain_double: formatCheck('subdomain_count', 'subdomain_double', 'Exactly two subdomain labels (a.b.example.com).', 2),
    subdomain_triple: formatCheck('subdomain_count', 'subdomain_triple', 'Exactly three subdomain labels (a.b.c.example.com).', 3),
    subdomain_deeply_nested: {
      description: 'At least min_depth subdomain labels.',
      when: (options) => ({ fact: 'subdomain_count', operator: 'greaterThanInclusive', value: minDepth(options) }),
      code: 'subdomain_deeply_nested',
      checkedType: 'address_format',
      options: {
        type: 'object',
        properties: { min_depth: { type: 'integer', minimum: 1, maximum: 127, description: 'Fewest subdomain labels that count as deeply nested.' } },
        additionalProperties: false,
      },
      defaults: { min_depth: DEFAULT_MIN_DEPTH },
    },
    subdomain_hyphenated: formatCheck('subdomain_has_hyphen', 'subdomain_contains_hyphen', 'A subdomain label contains a hyphen.'),
    subdomain_numeric: formatCheck('subdomain_has_numeric_label', 'subdomain_is_numeric', 'A subdomain label is all digits.'),
    subdomain_uuid_hash: formatCheck('subdomain_has_uuid', 'subdomain_contains_uuid_hash', 'A subdomain label is a UUID or a hex hash.'),
  },
  needs: ['structure', 'tld'],
  async run(ctx) {
    const domain = await ctx.fact('domain');
    const registrable = await ctx.fact('registrable_domain');
    return subdomainFacts(ctx, domain, registrable);
  },
};

function subdomainFacts(ctx: PluginContext, domain: unknown, registrable: unknown): FactValues {
  if (typeof domain !== 'string' || typeof registrable !== 'string') return {};
  const ascii = subdomainLabels(domain, registrable);
  if (ascii === null) return {};
  const labels = ascii.map(unicodeLabel);
  const bits = labels.reduce((max, label) => Math.max(max, entropyBits(label)), 0);
  const hasUuid = labels.some(isUuidOrHash);
  return {
    subdomain_count: labels.length,
    nesting_depth: labels.length,
    subdomain_has_wildcard: labels.some((label) => label.includes('*')),
    subdomain_has_hyphen: labels.some((label) => label.includes('-')),
    subdomain_has_numeric: labels.some((label) => /[0-9]/.test(label)),
    subdomain_has_numeric_label: labels.some(isNumericLabel),
    subdomain_has_uuid: hasUuid,
    subdomain_entropy: entropyWord(labels.length, bits),
    subdomain_entropy_bits: Math.round(bits * 1000) / 1000,
    random_subdomain_signal: signal(labels.some(isRandomLabel)),
    deep_nesting_risk_signal: signal(labels.length >= minDepth(ctx.options('subdomain_deeply_nested'))),
    uuid_subdomain_risk_signal: signal(hasUuid),
  };
}

export default plugin;
