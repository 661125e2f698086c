import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { decisionFor, type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import fraudPattern from './index.js';

const clean = { has_fraud_pattern: false, fraud_pattern: null };
const flagged = (pattern: string) => ({ has_fraud_pattern: true, fraud_pattern: pattern });
const unknown = { has_fraud_pattern: null, fraud_pattern: null, local_entropy: null, longest_digit_run: null, keyboard_walk_length: null };

/** Real people's addresses in several languages and naming customs: none may be flagged. */
const PEOPLE = [
  'john.smith',
  'jane.doe1985',
  'mike_jones',
  'maria.garcia',
  'zhang.wei',
  'olumide.adeyemi',
  'nguyen.van.anh',
  'mohammed.al-rashid',
  'krzysztof.wojciechowski',
  'brzeczyszczykiewicz',
  'strzelczyk',
  'schwarzkopf',
  'joerg.schwarzbach',
  'friedrich.nietzsche',
  'dwightschrute',
  'mkrtchyan',
  'christopher.nkemdirim',
  'chukwuemeka.okonkwo',
  'phumzile.mlambo-ngcuka',
  'xolani.mthembu',
  'nkosinathi.mthethwa',
  'venkataraghavan.srinivasan',
  'pradeep.krishnamurthy',
  'dmitriy.shostakovich',
  'yevgeniy.kuznetsov',
  'niamh.nicdhonnchadha',
  'rhydderch.ffransis',
  'hwang.kyungsoo',
  'watanabe.kenichiro',
  'abdulrahman.alqahtani',
  'jorge.fernandez-gonzalez',
  'francisco.javier.rodriguez',
  'whitney.houston1963',
  'jsmith19850412',
  'jkl.smith',
  't.j.miller',
  'mp3lover2k',
  'j0hn.sm1th',
  'mike2jones4ever',
  'ZHANG.Wei',
  '张伟',
  'иван.петров',
  'müller.jürgen',
  'françois.lefèvre',
  'θεόδωρος.παπαδόπουλος',
  'محمد.علي',
];

const people: PluginCase[] = PEOPLE.map((local) => ({ name: `a person: ${local}`, email: `${local}@example.com`, facts: clean, fires: [] }));

testPlugin(fraudPattern, [
  ...people,
  // Random tokens: high entropy (Shannon bits per character) with a machine shape.
  {
    email: 'x7kq2m9vz3p8@example.com',
    facts: { ...flagged('high_entropy:3.58'), local_entropy: 3.58, longest_digit_run: 1, keyboard_walk_length: 1 },
    fires: ['fraud_pattern_detection'],
  },
  { email: 'a8f3k2j9d7s1@example.com', facts: { ...flagged('high_entropy:3.58'), local_entropy: 3.58 }, fires: ['fraud_pattern_detection'] },
  {
    name: 'eight distinct characters sit exactly on the 3.00 threshold',
    email: 'k2j9d7s1@example.com',
    facts: { ...flagged('high_entropy:3.00'), local_entropy: 3 },
    fires: ['fraud_pattern_detection'],
  },
  { name: 'seven characters are under min_length', email: 'k2j9d7s@example.com', facts: { ...clean, local_entropy: 2.81 }, fires: [] },
  { name: 'a hex hash', email: 'd41d8cd98f00b204e9800998ecf8427e@example.com', facts: flagged('high_entropy:3.39'), fires: ['fraud_pattern_detection'] },
  { name: 'a token after a word', email: 'user.8f3k2j9d@example.com', facts: flagged('high_entropy:3.58'), fires: ['fraud_pattern_detection'] },
  {
    name: 'consonant soup',
    email: 'xkqzvbnmtrwp@example.com',
    facts: { ...flagged('high_entropy:3.58'), longest_digit_run: 0 },
    fires: ['fraud_pattern_detection'],
  },
  { name: 'upper case is judged lower-cased', email: 'X7KQ2M9VZ3P8@example.com', facts: flagged('high_entropy:3.58'), fires: ['fraud_pattern_detection'] },
  { name: 'quoted token', email: '"x7kq2m9vz3p8"@example.com', facts: flagged('high_entropy:3.58'), fires: ['fraud_pattern_detection'] },
  // Threshold both sides with options.
  {
    name: 'entropy_threshold 3.6 spares a 3.58 token',
    email: 'x7kq2m9vz3p8@example.com',
    options: { fraud_pattern_detection: { entropy_threshold: 3.6 } },
    facts: { ...clean, local_entropy: 3.58 },
    fires: [],
  },
  {
    name: 'entropy_threshold 3.58 still flags it (inclusive)',
    email: 'a8f3k2j9d7s1@example.com',
    options: { fraud_pattern_detection: { entropy_threshold: 3.58 } },
    facts: flagged('high_entropy:3.58'),
    fires: ['fraud_pattern_detection'],
  },
  {
    name: 'min_length 13 spares 12 characters',
    email: 'h7g5k2m9p3x1@example.com',
    options: { fraud_pattern_detection: { min_length: 13 } },
    facts: clean,
    fires: [],
  },
  {
    name: 'min_length 6 flags a shorter token',
    email: 'q3v8z1@example.com',
    options: { fraud_pattern_detection: { min_length: 6, entropy_threshold: 2.5 } },
    facts: flagged('high_entropy:2.58'),
    fires: ['fraud_pattern_detection'],
  },
  { name: 'q3v8z1 under the defaults', email: 'q3v8z1@example.com', facts: { ...clean, local_entropy: 2.58 }, fires: [] },
  {
    name: 'a plain name with a high entropy is no token',
    email: 'francisco.javier.rodriguez@example.com',
    options: { fraud_pattern_detection: { entropy_threshold: 1 } },
    facts: { ...clean, local_entropy: 3.72 },
    fires: [],
  },
  // Keyboard walks.
  { email: 'qwertyuiop@example.com', facts: { ...flagged('keyboard_walk:10'), keyboard_walk_length: 10 }, fires: ['fraud_pattern_detection'] },
  { email: 'poiuytrewq@example.com', facts: flagged('keyboard_walk:10'), fires: ['fraud_pattern_detection'] },
  { email: 'john.asdfgh@example.com', facts: flagged('keyboard_walk:6'), fires: ['fraud_pattern_detection'] },
  { email: 'qwerty123@example.com', facts: flagged('keyboard_walk:6'), fires: ['fraud_pattern_detection'] },
  { name: 'QWERTZ row', email: 'qwertz@example.com', facts: flagged('keyboard_walk:6'), fires: ['fraud_pattern_detection'] },
  { name: 'AZERTY row', email: 'azertyuiop@example.com', facts: flagged('keyboard_walk:10'), fires: ['fraud_pattern_detection'] },
  { email: 'zxcvbnm1@example.com', facts: flagged('keyboard_walk:7'), fires: ['fraud_pattern_detection'] },
  { name: 'the digit row', email: '123456@example.com', facts: { ...flagged('keyboard_walk:6'), longest_digit_run: 6 }, fires: ['fraud_pattern_detection'] },
  { name: 'the digit row backwards', email: '654321@example.com', facts: flagged('keyboard_walk:6'), fires: ['fraud_pattern_detection'] },
  {
    name: 'a walk wins over a digit run',
    email: 'user1234567890@example.com',
    facts: { ...flagged('keyboard_walk:10'), longest_digit_run: 10 },
    fires: ['fraud_pattern_detection'],
  },
  { name: 'five keys are short of a walk', email: 'qwert@example.com', facts: { ...clean, keyboard_walk_length: 5 }, fires: [] },
  { name: 'asdf1234: two short walks', email: 'asdf1234@example.com', facts: { ...clean, keyboard_walk_length: 4, longest_digit_run: 4 }, fires: [] },
  { name: 'a separator breaks a walk', email: 'qwe.rty@example.com', facts: { ...clean, keyboard_walk_length: 3 }, fires: [] },
  {
    name: 'min_walk_length 5 flags five keys',
    email: 'qwert@example.com',
    options: { fraud_pattern_detection: { min_walk_length: 5 } },
    facts: flagged('keyboard_walk:5'),
    fires: ['fraud_pattern_detection'],
  },
  {
    name: 'min_walk_length 7 spares six',
    email: 'john.asdfgh@example.com',
    options: { fraud_pattern_detection: { min_walk_length: 7 } },
    facts: clean,
    fires: [],
  },
  // Long digit runs beside letters.
  { email: 'user8374920163@example.com', facts: { ...flagged('long_digit_run:10'), longest_digit_run: 10 }, fires: ['fraud_pattern_detection'] },
  {
    name: 'nine digits pass max_digit_run 8 by one',
    email: 'maria837492016@example.com',
    facts: flagged('long_digit_run:9'),
    fires: ['fraud_pattern_detection'],
  },
  { name: 'a full date (8 digits) is allowed', email: 'maria19850412@example.com', facts: { ...clean, longest_digit_run: 8 }, fires: [] },
  {
    name: 'max_digit_run 4 flags a date',
    email: 'maria19850412@example.com',
    options: { fraud_pattern_detection: { max_digit_run: 4 } },
    facts: flagged('long_digit_run:8'),
    fires: ['fraud_pattern_detection'],
  },
  {
    name: 'max_digit_run 6 flags a date too',
    email: 'maria19850412@example.com',
    options: { fraud_pattern_detection: { max_digit_run: 6 } },
    facts: flagged('long_digit_run:8'),
    fires: ['fraud_pattern_detection'],
  },
  {
    name: 'max_digit_run 4 allows a year',
    email: 'jane.doe1985@example.com',
    options: { fraud_pattern_detection: { max_digit_run: 4 } },
    facts: clean,
    fires: [],
  },
  {
    name: 'an all-digit mailbox is local_numeric’s business (QQ numbers, phones)',
    email: '83749201637@qq.com',
    facts: { ...clean, longest_digit_run: 11 },
    fires: [],
  },
  // Documented false positives and misses (README), pinned so a change to them is deliberate.
  { name: 'known false positive: leetspeak', email: 'b4ck2th3futur3@example.com', facts: flagged('high_entropy:3.38'), fires: ['fraud_pattern_detection'] },
  {
    name: 'known false positive: a phone number after a name',
    email: 'rahul9876543210@example.com',
    facts: flagged('keyboard_walk:9'),
    fires: ['fraud_pattern_detection'],
  },
  { name: 'known miss: a column walk', email: '1qaz2wsx@example.com', facts: clean, fires: [] },
  { name: 'known miss: two digits in letters', email: 'ab3cd9ef@example.com', facts: clean, fires: [] },
  { name: 'known miss: soup split by a dot', email: 'xkqzv.bnmtr@example.com', facts: clean, fires: [] },
  { name: 'digits split by separators are still all digits', email: '837492016-37@qq.com', facts: { ...clean, longest_digit_run: 9 }, fires: [] },
  // The plus tag is the user's label: the mailbox name before it is judged.
  { name: 'a random plus tag', email: 'john.smith+x7kq2m9vz3p8@example.com', facts: { ...clean, local_entropy: 2.95 }, fires: [] },
  { name: 'a token before a plus tag', email: 'x7kq2m9vz3p8+news@example.com', facts: flagged('high_entropy:3.58'), fires: ['fraud_pattern_detection'] },
  { name: 'facts of a known name', email: 'john.smith@example.org', facts: { local_entropy: 2.95, longest_digit_run: 0, keyboard_walk_length: 1 }, fires: [] },
  { name: 'empty local part', email: '@example.com', facts: { ...clean, local_entropy: 0, longest_digit_run: 0, keyboard_walk_length: 0 }, fires: [] },
  { name: 'invalid but split: judged anyway', email: 'x7kq2m9vz3p8@', facts: flagged('high_entropy:3.58'), fires: ['fraud_pattern_detection'] },
  { name: 'no @: unknown', email: 'x7kq2m9vz3p8', facts: unknown, fires: [] },
  { name: 'no @, a plain word: unknown', email: 'plainaddress', facts: unknown, fires: [] },
  // Numeric by design (data/numeric-providers.txt): account and phone numbers are not patterns there.
  { name: 'a QQ number that is a digit-row walk', email: '1234567890@qq.com', facts: { ...clean, keyboard_walk_length: 10 }, fires: [] },
  { name: 'a QQ number', email: '20250419@qq.com', facts: clean, fires: [] },
  { name: 'a Foxmail QQ number', email: '987654321@foxmail.com', facts: { ...clean, keyboard_walk_length: 9 }, fires: [] },
  { name: 'a Chinese mobile number at 163.com', email: '13812345678@163.com', facts: clean, fires: [] },
  { name: 'a Chinese mobile number at 126.com', email: '15923456789@126.com', facts: clean, fires: [] },
  { name: 'a phone number at 139.com', email: '13987654321@139.com', facts: clean, fires: [] },
  { name: 'a Russian phone number at mail.ru', email: '79161234567@mail.ru', facts: clean, fires: [] },
  { name: 'a Russian phone number at yandex.ru', email: '89161234567@yandex.ru', facts: clean, fires: [] },
  { name: 'upper-case provider domain', email: '1234567890@QQ.COM', facts: clean, fires: [] },
  { name: 'the same number elsewhere: a walk', email: '1234567890@example.com', facts: flagged('keyboard_walk:10'), fires: ['fraud_pattern_detection'] },
  { name: "a number at a provider's subdomain: judged", email: '1234567890@mx.qq.com', facts: flagged('keyboard_walk:10'), fires: ['fraud_pattern_detection'] },
  { name: 'letters and digits at qq.com are judged', email: 'user8374920163@qq.com', facts: flagged('long_digit_run:10'), fires: ['fraud_pattern_detection'] },
  { name: 'a walk of letters at 163.com is judged', email: 'qwertyuiop@163.com', facts: flagged('keyboard_walk:10'), fires: ['fraud_pattern_detection'] },
  // Short common words hold three- and four-key runs; the least min_walk_length (5) spares them.
  ...['power', 'party', 'point', 'street', 'answer', 'alert', 'tower', 'property', 'hertz', 'poirot', 'trey'].map((word) => ({
    name: `the word ${word} at min_walk_length 5`,
    email: `${word}@example.com`,
    options: { fraud_pattern_detection: { min_walk_length: 5 } },
    facts: clean,
    fires: [],
  })),
]);

describe('fraud_pattern_detection check', () => {
  it('reports its code when it fires', async () => {
    const decision = await decisionFor({ fraud_pattern_detection: { mode: 'hard' } }, 'x7kq2m9vz3p8@example.com');
    expect(decision.fired.map((v) => v.name)).toEqual(['fraud_pattern_detection']);
    expect(decision).toMatchObject({ action: 'block', errors: ['fraud_pattern_detected'] });
  });

  it('validates its options', () => {
    const check = fraudPattern.checks.fraud_pattern_detection;
    const validate = new Ajv.default({ strict: true }).compile(check?.options ?? {});
    expect(validate(check?.defaults)).toBe(true);
    expect(validate({ entropy_threshold: 3.2, min_length: 10, max_digit_run: 6, min_walk_length: 5 })).toBe(true);
    for (const bad of [
      { min_length: 0 },
      { max_digit_run: 2.5 },
      { entropy_threshold: -1 },
      { min_walk_length: 2 },
      { min_walk_length: 4 },
      { threshold: 3 },
    ]) {
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
