import { testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';

const NONE = {
  has_plus_addressing: false,
  has_dot_variation: false,
  has_hyphen: false,
  has_underscore: false,
  has_numeric: false,
  local_is_numeric: false,
  is_quoted: false,
  has_special_characters: false,
  local_is_empty: false,
  has_catch_all_wildcard: false,
};

const UNKNOWN = Object.fromEntries(Object.keys(NONE).map((k) => [k, null]));

/** Every fact, all false but the ones named. */
function traits(email: string, present: Partial<typeof NONE>, name?: string) {
  return { name: name ?? email, email, facts: { ...NONE, ...present } };
}

testPlugin(plugin, [
  traits('john@example.com', {}),
  traits('josé@example.com', {}, 'non-ASCII letters are letters'),
  traits('john+tag@example.com', { has_plus_addressing: true }),
  traits('john.doe@example.com', { has_dot_variation: true }),
  traits('john-doe@example.com', { has_hyphen: true }),
  traits('john_doe@example.com', { has_underscore: true }),
  traits('john1985@example.com', { has_numeric: true }),
  traits('12345@example.com', { has_numeric: true, local_is_numeric: true }),
  traits('١٢٣@example.com', { has_numeric: true, local_is_numeric: true }, 'Arabic-Indic digits are digits'),
  traits('j.o-h_n+1@example.com', {
    has_plus_addressing: true,
    has_dot_variation: true,
    has_hyphen: true,
    has_underscore: true,
    has_numeric: true,
  }),
  traits("o'brien@example.com", { has_special_characters: true }),
  traits('a!b#c$d%e&f@example.com', { has_special_characters: true }),
  traits('x=y?z^a`b{c|d}e~f/g@example.com', { has_special_characters: true }),
  traits('*@example.com', { has_special_characters: true, has_catch_all_wildcard: true }),
  traits('sales*@example.com', { has_special_characters: true, has_catch_all_wildcard: true }),
  traits('"john"@example.com', { is_quoted: true }, 'quoted: the quotes are not special characters'),
  traits('"john doe"@example.com', { is_quoted: true, has_special_characters: true }, 'quoted: a space is special'),
  traits('"123"@example.com', { is_quoted: true, has_numeric: true, local_is_numeric: true }),
  traits('"a\\"b"@example.com', { is_quoted: true, has_special_characters: true }, 'quoted: an escaped quote is special'),
  traits('"a+b.c"@example.com', { is_quoted: true, has_plus_addressing: true, has_dot_variation: true }),
  traits('""@example.com', { is_quoted: true, local_is_empty: true }, 'empty quoted string'),
  traits('@example.com', { local_is_empty: true }, 'empty local part'),
  traits('john doe@example.com', { has_special_characters: true }, 'invalid address: traits still read'),
  traits('"john@example.com', { has_special_characters: true }, 'a lone quote is not a quoted local part'),
  traits('😀@example.com', { has_special_characters: true }, 'an emoji is neither letter nor digit'),
  { name: 'no @: every fact unknown', email: 'john.example.com', facts: UNKNOWN },
  { name: 'empty input: every fact unknown', email: '', facts: UNKNOWN },
]);
