// Local-part traits: plus addressing, dots, hyphens, digits, quoting, special characters, emptiness.
import type { Plugin } from '../../src/engine/plugin.js';
import { formatCheck } from '../fact-checks.js';
import { localPartTraits } from './traits.js';

const plugin: Plugin = {
  id: 'local-part',
  description: 'Character traits of the local part (for a quoted local part, of the text between the quotes).',
  steps: [
    'local_plus',
    'local_dot',
    'local_hyphen',
    'local_underscore',
    'local_numeric',
    'local_quoted',
    'local_special_chars',
    'local_empty',
    'catch_all_wildcard',
  ],
  codes: {
    local_contains_plus_symbol: { error: 'local_part' },
    local_contains_dot_variations: { error: 'local_part' },
    local_contains_hyphen: { error: 'local_part' },
    local_contains_underscore: { error: 'local_part' },
    local_is_numeric: { error: 'local_part' },
    local_is_quoted: { error: 'local_part' },
    local_contains_special_chars: { error: 'local_part' },
    local_is_empty: { error: 'format' },
    local_contains_catch_all_wildcard: { error: 'other' },
  },
  facts: {
    has_plus_addressing: { type: 'boolean', description: 'The local part contains "+".' },
    has_dot_variation: { type: 'boolean', description: 'The local part contains ".".' },
    has_hyphen: { type: 'boolean', description: 'The local part contains "-".' },
    has_underscore: { type: 'boolean', description: 'The local part contains "_".' },
    has_numeric: { type: 'boolean', description: 'The local part contains a decimal digit.' },
    local_is_numeric: { type: 'boolean', description: 'The local part is made of decimal digits only.' },
    is_quoted: { type: 'boolean', description: 'The local part is a quoted string ("john doe").' },
    has_special_characters: {
      type: 'boolean',
      description: 'The local part holds a character other than letters, digits, ".", "+", "-", "_" and the apostrophe of names (O\'Brien).',
    },
    local_is_empty: { type: 'boolean', description: 'The local part is empty or an empty quoted string ("").' },
    has_catch_all_wildcard: { type: 'boolean', description: 'The local part contains the wildcard "*".' },
  },
  checks: {
    local_plus: formatCheck('has_plus_addressing', 'local_contains_plus_symbol', 'The local part uses plus addressing.'),
    local_dot: formatCheck('has_dot_variation', 'local_contains_dot_variations', 'The local part contains dots.'),
    local_hyphen: formatCheck('has_hyphen', 'local_contains_hyphen', 'The local part contains a hyphen.'),
    local_underscore: formatCheck('has_underscore', 'local_contains_underscore', 'The local part contains an underscore.'),
    local_numeric: formatCheck('local_is_numeric', 'local_is_numeric', 'The local part is digits only.'),
    local_quoted: formatCheck('is_quoted', 'local_is_quoted', 'The local part is a quoted string.'),
    local_special_chars: formatCheck('has_special_characters', 'local_contains_special_chars', 'The local part holds special characters.'),
    local_empty: formatCheck('local_is_empty', 'local_is_empty', 'The local part is empty.'),
    catch_all_wildcard: formatCheck('has_catch_all_wildcard', 'local_contains_catch_all_wildcard', 'The local part contains the wildcard "*".'),
  },
  needs: ['structure'],
  async run(ctx) {
    const localPart = await ctx.fact('local_part');
    if (typeof localPart !== 'string') return {};
    return { ...localPartTraits(localPart) };
  },
};

export default plugin;
