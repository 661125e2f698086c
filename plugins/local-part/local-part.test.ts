import { expect, it } from 'vitest';
import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
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

/** Every fact, all false but the ones named; `fires`: the checks that fire. */
function traits(email: string, present: Partial<typeof NONE>, fires: string[], name?: string): PluginCase {
  return { name: name ?? email, email, facts: { ...NONE, ...present }, fires };
}

const cases: PluginCase[] = [
  traits('john@example.com', {}, []),
  traits('josé@example.com', {}, [], 'non-ASCII letters are letters'),
  traits('john+tag@example.com', { has_plus_addressing: true }, ['local_plus']),
  traits('john.doe@example.com', { has_dot_variation: true }, ['local_dot']),
  traits('john-doe@example.com', { has_hyphen: true }, ['local_hyphen']),
  traits('john_doe@example.com', { has_underscore: true }, ['local_underscore']),
  traits('john1985@example.com', { has_numeric: true }, [], 'a digit among letters: no check reads has_numeric'),
  traits('12345@example.com', { has_numeric: true, local_is_numeric: true }, ['local_numeric']),
  traits('١٢٣@example.com', { has_numeric: true, local_is_numeric: true }, ['local_numeric'], 'Arabic-Indic digits are digits'),
  traits(
    'j.o-h_n+1@example.com',
    {
      has_plus_addressing: true,
      has_dot_variation: true,
      has_hyphen: true,
      has_underscore: true,
      has_numeric: true,
    },
    ['local_dot', 'local_hyphen', 'local_plus', 'local_underscore'],
  ),
  // Names with an apostrophe are ordinary people (issue 11, no false alarms): not special characters.
  traits("o'brien@example.com", {}, [], 'an apostrophe of a name is not special'),
  traits("o'brien-smith@example.com", { has_hyphen: true }, ['local_hyphen'], 'apostrophe and hyphen in one name'),
  traits("d'angelo.maria@example.com", { has_dot_variation: true }, ['local_dot'], 'apostrophe then a dot'),
  traits("jean-luc.o'neil@example.com", { has_dot_variation: true, has_hyphen: true }, ['local_dot', 'local_hyphen'], 'hyphen, dot and apostrophe'),
  traits("o'brien!@example.com", { has_special_characters: true }, ['local_special_chars'], 'an apostrophe does not hide another special character'),
  traits('a!b#c$d%e&f@example.com', { has_special_characters: true }, ['local_special_chars']),
  traits('x=y?z^a`b{c|d}e~f/g@example.com', { has_special_characters: true }, ['local_special_chars']),
  traits('*@example.com', { has_special_characters: true, has_catch_all_wildcard: true }, ['catch_all_wildcard', 'local_special_chars']),
  traits('sales*@example.com', { has_special_characters: true, has_catch_all_wildcard: true }, ['catch_all_wildcard', 'local_special_chars']),
  traits('"john"@example.com', { is_quoted: true }, ['local_quoted'], 'quoted: the quotes are not special characters'),
  traits('"john doe"@example.com', { is_quoted: true, has_special_characters: true }, ['local_quoted', 'local_special_chars'], 'quoted: a space is special'),
  traits('"123"@example.com', { is_quoted: true, has_numeric: true, local_is_numeric: true }, ['local_numeric', 'local_quoted']),
  traits(
    '"a\\"b"@example.com',
    { is_quoted: true, has_special_characters: true },
    ['local_quoted', 'local_special_chars'],
    'quoted: an escaped quote is special',
  ),
  traits('"a+b.c"@example.com', { is_quoted: true, has_plus_addressing: true, has_dot_variation: true }, ['local_dot', 'local_plus', 'local_quoted']),
  traits('""@example.com', { is_quoted: true, local_is_empty: true }, ['local_empty', 'local_quoted'], 'empty quoted string'),
  traits('@example.com', { local_is_empty: true }, ['local_empty'], 'empty local part'),
  traits('john doe@example.com', { has_special_characters: true }, ['local_special_chars'], 'invalid address: traits still read'),
  traits('"john@example.com', { has_special_characters: true }, ['local_special_chars'], 'a lone quote is not a quoted local part'),
  traits('😀@example.com', { has_special_characters: true }, ['local_special_chars'], 'an emoji is neither letter nor digit'),
  { name: 'no @: every fact unknown', email: 'john.example.com', facts: UNKNOWN, fires: [] },
  { name: 'empty input: every fact unknown', email: '', facts: UNKNOWN, fires: [] },
];

testPlugin(plugin, cases);

it('local-part: its steps are its checks (it has no signal steps)', () => {
  expect([...plugin.steps].sort()).toEqual(Object.keys(plugin.checks).sort());
});
