// Fraud pattern: a mailbox name that a machine made (keyboard walks, long digit runs, random tokens).
import type { CheckOptions, FactValues, Plugin } from '../../src/engine/plugin.js';
import { entropyBits } from '../label-shape.js';
import { dataLists, readList } from '../plugin-data.js';
import { longestDigitRun, longestKeyboardWalk, looksGenerated, mailboxName, withoutSeparators } from './patterns.js';

const CHECK = 'fraud_pattern_detection';

const DEFAULTS = {
  /** Bits per character: 8 distinct characters score 3.0, 12 score 3.58. */
  entropy_threshold: 3,
  /** Characters (separators not counted) before the entropy test applies. */
  min_length: 8,
  /** Longest digit run allowed beside letters: a full date (19850412) passes. */
  max_digit_run: 8,
  /** Shortest walk along a keyboard row that counts (qwerty, asdfgh, 123456). */
  min_walk_length: 6,
} as const;

const ALL_DIGITS = /^[0-9]*$/;

/** Providers whose mailbox names are numbers by design (QQ ids, phone numbers): data/SOURCE.md. */
const NUMERIC_PROVIDERS = readList('fraud-pattern', 'numeric-providers.txt');

/** The domain is a provider whose addresses are numeric by design (exact name: vip.qq.com is listed itself). */
const isNumericProvider = (domain: string): boolean => NUMERIC_PROVIDERS.has(domain);

const numberOption = (options: CheckOptions, name: keyof typeof DEFAULTS): number => {
  const value = options[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : DEFAULTS[name];
};

/** The first pattern found, most specific first: keyboard walk, long digit run, high entropy. */
function findPattern(
  localPart: string,
  numericByDesign: boolean,
  options: CheckOptions,
): { pattern: string | null; bits: number; digitRun: number; walk: number } {
  const name = mailboxName(localPart);
  const compact = withoutSeparators(name);
  const bits = Math.round(entropyBits(compact) * 100) / 100;
  const digitRun = longestDigitRun(name);
  const walk = longestKeyboardWalk(name);
  const size = [...compact].length;
  let pattern: string | null = null;
  // 1234567890@qq.com is an account number, 79161234567@mail.ru a phone number: no pattern to find there.
  if (numericByDesign && compact !== '' && ALL_DIGITS.test(compact)) pattern = null;
  else if (walk >= numberOption(options, 'min_walk_length')) pattern = `keyboard_walk:${walk}`;
  // An all-digit name (QQ numbers, phone numbers) is the local_numeric check's business.
  else if (digitRun > numberOption(options, 'max_digit_run') && !ALL_DIGITS.test(compact)) pattern = `long_digit_run:${digitRun}`;
  else if (size >= numberOption(options, 'min_length') && bits >= numberOption(options, 'entropy_threshold') && looksGenerated(name)) {
    pattern = `high_entropy:${bits.toFixed(2)}`;
  }
  return { pattern, bits, digitRun, walk };
}

const plugin: Plugin = {
  id: 'fraud-pattern',
  description: 'Detects machine-made mailbox names: keyboard walks, long digit runs beside letters, and random high-entropy tokens.',
  steps: [CHECK],
  codes: {
    fraud_pattern_detected: { error: 'detection', warning: 'soft form of the fraud-pattern detection' },
  },
  facts: {
    has_fraud_pattern: { type: 'boolean', description: 'The mailbox name shows a fraud pattern (fraud_pattern is set), under the check options.' },
    fraud_pattern: {
      type: 'string',
      description: 'The pattern found, as name:number: keyboard_walk:<keys>, long_digit_run:<digits> or high_entropy:<bits per character>; null when none.',
    },
    local_entropy: { type: 'number', description: 'Shannon entropy of the mailbox name in bits per character (2 decimals), plus tag and separators left out.' },
    longest_digit_run: { type: 'integer', description: 'Longest run of consecutive digits in the mailbox name.' },
    keyboard_walk_length: { type: 'integer', description: 'Longest run of neighbouring keys along one keyboard row, either direction (qwerty: 6).' },
  },
  checks: {
    [CHECK]: {
      description: 'The mailbox name looks machine-made (keyboard walk, long digit run or random token).',
      when: { fact: 'has_fraud_pattern', operator: 'equal', value: true },
      code: 'fraud_pattern_detected',
      checkedType: 'fraud_pattern_detection',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          entropy_threshold: { type: 'number', minimum: 0, maximum: 16 },
          min_length: { type: 'integer', minimum: 1, maximum: 64 },
          max_digit_run: { type: 'integer', minimum: 1, maximum: 64 },
          // Three-key runs are in everyday words (power, party, street), four in names (Hertz): five at least.
          min_walk_length: { type: 'integer', minimum: 5, maximum: 20 },
        },
      },
      defaults: DEFAULTS,
    },
  },
  needs: ['structure'],
  data: dataLists('fraud-pattern', [{ file: 'numeric-providers.txt', entries: NUMERIC_PROVIDERS.size }]),
  async run(ctx): Promise<FactValues> {
    // Both structure's.
    const localPart = await ctx.fact('local_part');
    const domain = await ctx.fact('domain');
    if (typeof localPart !== 'string') return {};
    const found = findPattern(localPart, typeof domain === 'string' && isNumericProvider(domain.toLowerCase()), ctx.options(CHECK));
    return {
      has_fraud_pattern: found.pattern !== null,
      fraud_pattern: found.pattern,
      local_entropy: found.bits,
      longest_digit_run: found.digitRun,
      keyboard_walk_length: found.walk,
    };
  },
};

export default plugin;
