import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import idn from './index.js';

/** An all-ASCII address without xn--: no flag raised, and no other form of it given. */
const noForms = { mixed_script: null, punycode_email: null, punycode_value: null, unicode_domain: null };
const plain = { is_internationalized: false, has_punycode: false, has_mixed_script: false, ...noForms };

/** An internationalised address whose parts mix the writing systems `scripts` (as `mixed_script` joins them). */
const mixed = (name: string, email: string, scripts: string): PluginCase => ({
  name,
  email,
  facts: { has_mixed_script: true, mixed_script: scripts },
  fires: ['internationalized_email', 'mixed_script_email'],
});

const cases: PluginCase[] = [
  { email: 'user@example.com', facts: plain, fires: [] },
  { name: 'digits and punctuation are Common, not a script', email: 'user-1.x_y@ex-ample1.com', facts: plain, fires: [] },
  { name: 'ASCII in capitals, wrapped in spaces: one script, no other forms', email: ' Jane.DOE+x@Mail.Example.CO.UK ', facts: plain, fires: [] },
  {
    name: 'Chinese address',
    email: '用户@例子.广告',
    facts: {
      is_internationalized: true,
      has_punycode: false,
      has_mixed_script: false,
      mixed_script: null,
      punycode_email: '用户@xn--fsqu00a.xn--4rr70v',
      punycode_value: 'xn--fsqu00a.xn--4rr70v',
      unicode_domain: '例子.广告',
    },
    fires: ['internationalized_email'],
  },
  {
    name: 'ideographic full stop: a label separator, as UTS #46 maps it',
    email: 'jane@日本語。jp',
    facts: {
      is_internationalized: true,
      has_punycode: false,
      has_mixed_script: false,
      punycode_email: 'jane@xn--wgv71a119e.jp',
      punycode_value: 'xn--wgv71a119e.jp',
      unicode_domain: '日本語.jp',
    },
    fires: ['internationalized_email'],
  },
  {
    name: 'full-width and half-width full stops too',
    email: '用户@例子．广告',
    facts: { is_internationalized: true, punycode_value: 'xn--fsqu00a.xn--4rr70v', unicode_domain: '例子.广告' },
    fires: ['internationalized_email'],
  },
  {
    name: 'an ASCII name with an ideographic full stop is the ASCII name: nothing internationalised is left',
    email: 'jane@example｡com',
    facts: { is_internationalized: false, has_punycode: false, punycode_email: null, punycode_value: null, unicode_domain: null },
    fires: [],
  },
  {
    email: 'josé@exämple.com',
    facts: {
      is_internationalized: true,
      has_punycode: false,
      has_mixed_script: false,
      punycode_email: 'josé@xn--exmple-cua.com',
      punycode_value: 'xn--exmple-cua.com',
      unicode_domain: 'exämple.com',
    },
    fires: ['internationalized_email'],
  },
  {
    name: 'non-ASCII local part only: no punycode form',
    email: 'josé@example.com',
    facts: { is_internationalized: true, has_punycode: false, punycode_email: null, punycode_value: null, unicode_domain: null },
    fires: ['internationalized_email'],
  },
  {
    email: 'a@xn--exmple-cua.com',
    facts: {
      is_internationalized: false,
      has_punycode: true,
      has_mixed_script: false,
      punycode_email: 'a@xn--exmple-cua.com',
      punycode_value: 'xn--exmple-cua.com',
      unicode_domain: 'exämple.com',
    },
    fires: ['punycode_email'],
  },
  {
    name: 'Cyrillic а in a Latin label',
    email: 'a@p\u0430ypal.com',
    facts: {
      is_internationalized: true,
      has_punycode: false,
      has_mixed_script: true,
      mixed_script: 'Cyrillic+Latin',
      punycode_email: 'a@xn--pypal-4ve.com',
      punycode_value: 'xn--pypal-4ve.com',
      unicode_domain: 'p\u0430ypal.com',
    },
    fires: ['internationalized_email', 'mixed_script_email'],
  },
  {
    name: 'mixed label hidden in punycode',
    email: 'a@xn--pypal-4ve.com',
    facts: { is_internationalized: false, has_punycode: true, has_mixed_script: true, mixed_script: 'Cyrillic+Latin', unicode_domain: 'p\u0430ypal.com' },
    fires: ['mixed_script_email', 'punycode_email'],
  },
  {
    name: 'mixed local part',
    email: 'p\u0430ypal@example.com',
    facts: { is_internationalized: true, has_punycode: false, has_mixed_script: true, mixed_script: 'Cyrillic+Latin', punycode_email: null },
    fires: ['internationalized_email', 'mixed_script_email'],
  },
  mixed('Greek omicron in a Latin label', 'a@g\u03bfogle.com', 'Greek+Latin'),
  mixed('scripts of every mixed part are reported', '\u03b1lpha@p\u0430ypal.com', 'Cyrillic+Greek+Latin'),
  {
    name: 'one script per label is not mixed',
    email: 'a@пример.com',
    facts: { is_internationalized: true, has_mixed_script: false, mixed_script: null, punycode_value: 'xn--e1afmkfd.com' },
    fires: ['internationalized_email'],
  },
  {
    name: 'Cyrillic-only domain',
    email: 'почта@пример.рф',
    facts: { has_mixed_script: false, punycode_value: 'xn--e1afmkfd.xn--p1ai', unicode_domain: 'пример.рф' },
    fires: ['internationalized_email'],
  },
  {
    name: 'Japanese Han+Hiragana+Katakana is one writing system',
    email: 'たろう@日本のドメイン.jp',
    facts: { is_internationalized: true, has_mixed_script: false, mixed_script: null, punycode_value: 'xn--u9jxfoe1dzd2589ao4b.jp' },
    fires: ['internationalized_email'],
  },
  { name: 'Japanese with Latin', email: 'taro@abcの会社.jp', facts: { has_mixed_script: false }, fires: ['internationalized_email'] },
  { name: 'Japanese long vowel mark is Common', email: 'a@コーヒー.jp', facts: { has_mixed_script: false }, fires: ['internationalized_email'] },
  { name: 'Korean Hangul+Han', email: 'a@한국漢字.kr', facts: { has_mixed_script: false }, fires: ['internationalized_email'] },
  mixed('Hangul with Hiragana is not one system', 'a@한국の.kr', 'Hangul+Hiragana'),
  mixed('Cyrillic with Han is not one system', 'a@д中.com', 'Cyrillic+Han'),
  {
    name: 'combining accent is Inherited',
    email: 'a@cafe\u0301.com',
    facts: { is_internationalized: true, has_mixed_script: false, punycode_value: 'xn--caf-dma.com' },
    fires: ['internationalized_email'],
  },
  {
    name: 'invalid punycode',
    email: 'a@xn--zz.com',
    facts: { is_internationalized: false, has_punycode: true, has_mixed_script: false, punycode_email: null, punycode_value: null, unicode_domain: null },
    fires: ['punycode_email'],
  },
  {
    name: 'upper-case punycode prefix',
    email: 'a@XN--EXMPLE-CUA.com',
    facts: { has_punycode: true, unicode_domain: 'exämple.com' },
    fires: ['punycode_email'],
  },
  // issue 11: case folding is UTS #46's (Σ → σ always), not toLowerCase's (word-final Σ → ς)
  {
    name: 'capital final sigma (before a digit, where toLowerCase gives ς) folds to σ, as every reference does',
    email: 'a@ΟΔΟΣ1.gr',
    facts: { punycode_value: 'xn--1-4lb6abu.gr', unicode_domain: 'οδοσ1.gr', punycode_email: 'a@xn--1-4lb6abu.gr' },
    fires: ['internationalized_email'],
  },
  {
    name: 'a written final ς stays ς (nontransitional)',
    email: 'a@οδος1.gr',
    facts: { punycode_value: 'xn--1-4lb6abp.gr', unicode_domain: 'οδος1.gr' },
    fires: ['internationalized_email'],
  },
  {
    name: 'bidi rule per label: a Hebrew label beside a digit-led one converts',
    email: 'a@שלום.1und1.de',
    facts: { punycode_value: 'xn--9dbne9b.1und1.de', unicode_domain: 'שלום.1und1.de' },
    fires: ['internationalized_email'],
  },
  {
    name: 'ACE label decoding to a symbol is not valid IDNA 2008: no forms',
    email: 'a@xn--b-nca.com',
    facts: { has_punycode: true, punycode_value: null, unicode_domain: null },
    fires: ['punycode_email'],
  },
  { name: 'xn-- inside a label is not punycode', email: 'a@abcxn--d.com', facts: { has_punycode: false }, fires: [] },
  {
    name: 'IPv4 literal: only local-part facts',
    email: 'a@[192.168.0.1]',
    facts: { ...plain, has_punycode: null },
    fires: [],
  },
  {
    name: 'IPv4 literal with an internationalised local part',
    email: 'josé@[192.168.0.1]',
    facts: { is_internationalized: true, has_punycode: null, has_mixed_script: false, punycode_email: null, unicode_domain: null },
    fires: ['internationalized_email'],
  },
  {
    name: 'no @',
    email: 'plainaddress',
    facts: Object.fromEntries(Object.keys(plain).map((fact) => [fact, null])),
    fires: [],
  },
];

testPlugin(idn, cases);
