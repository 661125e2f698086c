import { describe, expect, it } from 'vitest';
import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import structure from './index.js';
import { parseAddress } from './parse.js';

const longDots = 'a.'.repeat(50_000); // 100k characters

/** A valid mailbox: the structure check does not fire. */
function valid(email: string, local: string, domain: string, literal: string | null = null, name?: string): PluginCase {
  return {
    name: name ?? `valid: ${email}`,
    email,
    facts: { valid_address_format: true, local_part: local, domain, domain_literal: literal },
    fires: [],
  };
}

/** Not a valid mailbox: the structure check fires. */
function invalid(email: string, local: string | null, domain: string | null, name?: string): PluginCase {
  return {
    name: name ?? `invalid: ${JSON.stringify(email)}`,
    email,
    facts: { valid_address_format: false, local_part: local, domain, domain_literal: null },
    fires: ['structure'],
  };
}

/** The issue 11 local-part table: [local part, accepted?, why]. Each is tried @example.com. */
const LOCAL_PART_TABLE: ReadonlyArray<readonly [string, boolean, string]> = [
  // ASCII: atext accepted, every other printable ASCII refused, alone, inside, or next to a dot
  ["o'brien", true, 'apostrophe is atext'],
  ['a{b}|c', true, 'braces and bar are atext'],
  ['`a`', true, 'backtick is atext'],
  ['a.=b', true, 'atext next to a dot'],
  ['a"b', false, 'quote inside an atom'],
  ['(', false, 'open parenthesis alone'],
  [')', false, 'close parenthesis alone'],
  ['<a>', false, 'angle brackets'],
  ['a:b', false, 'colon'],
  ['a;b', false, 'semicolon'],
  ['a.,b', false, 'comma next to a dot'],
  ['a.:', false, 'colon after a dot'],
  [';.a', false, 'semicolon before a dot'],
  ['a.[b', false, 'bracket after a dot'],
  ['a].b', false, 'bracket before a dot'],
  // Unicode letters, marks and numbers accepted
  ['müller', true, 'Latin letter (Ll)'],
  ['Ωmega', true, 'Greek capital (Lu)'],
  ['用户', true, 'Han (Lo)'],
  ['ʰa', true, 'modifier letter (Lm)'],
  ['नमस्ते', true, 'Devanagari with combining marks (Mn, Mc)'],
  ['٣٤٥', true, 'Arabic-Indic digits (Nd)'],
  ['Ⅻ', true, 'Roman numeral (Nl)'],
  ['½x', true, 'vulgar fraction (No)'],
  ['ß.ς', true, 'sharp s and final sigma, dotted'],
  // Unicode symbols refused
  ['😀', false, 'emoji (So)'],
  ['a😀b', false, 'emoji inside'],
  ['a©', false, 'copyright sign (So)'],
  ['€5', false, 'currency sign (Sc)'],
  ['a∑b', false, 'math symbol (Sm)'],
  ['a˚', false, 'modifier symbol (Sk)'],
  ['«a»', false, 'guillemets (Pi, Pf)'],
  ['a¡', false, 'inverted exclamation (Po)'],
  ['a‐b', false, 'Unicode hyphen (Pd)'],
  // spaces, controls, format characters, private use
  ['a\u3000b', false, 'ideographic space (Zs)'],
  ['a\u2028b', false, 'line separator (Zl)'],
  ['a\u009fb', false, 'C1 control (Cc)'],
  ['a\u200bb', false, 'zero-width space (Cf)'],
  ['a\u200db', false, 'zero-width joiner (Cf)'],
  ['a\u202eb', false, 'right-to-left override (Cf)'],
  ['a\u00adb', false, 'soft hyphen (Cf)'],
  ['a\ufeffb', false, 'byte-order mark (Cf)'],
  ['a\ue000b', false, 'private use (Co)'],
  ['a\u0378b', false, 'unassigned (Cn)'],
  // NFC
  ['ren\u00e9e', true, 'composed é (NFC)'],
  ['jose\u0301', false, 'decomposed e + combining acute (not NFC)'],
  ['\u212b', false, 'Angstrom sign: NFC makes it Å'],
  ['"a\u00e9 b"', true, 'quoted: composed letter and ASCII space'],
  ['"a😀"', false, 'quoted: emoji refused as well'],
  ['"e\u0301"', false, 'quoted: not NFC'],
  // a combining mark needs a base letter before it (python-email-validator: "unsafe characters")
  ['\u0300', false, 'combining grave accent alone (Mn)'],
  ['\u0301a', false, 'combining acute first (Mn)'],
  ['\u093fa', false, 'Devanagari vowel sign first (Mc)'],
  ['\u20ddx', false, 'enclosing circle first (Me)'],
  ['"\u0300a"', false, 'quoted: combining mark first'],
  ['x\u0302', true, 'a mark after its base letter (x̂ has no precomposed form: NFC)'],
  ['a.\u0301b', true, 'a mark after a dot: python-email-validator accepts it too'],
];

/** The issue 11 domain-label table: [domain, accepted?, why]. Each is tried as x@domain. */
const DOMAIN_LABEL_TABLE: ReadonlyArray<readonly [string, boolean, string]> = [
  ['a-b.c0m', true, 'letters, digits, inner hyphen'],
  ['ex`ample.com', false, 'backtick'],
  ['example.c`om', false, 'backtick in the TLD'],
  ["o'brien.com", false, 'apostrophe'],
  ['ex!ample.com', false, 'exclamation mark'],
  ['example.co+m', false, 'plus in the TLD'],
  ['exa$mple.com', false, 'dollar'],
  ['exa~mple.com', false, 'tilde'],
  ['example.c_m', false, 'underscore in the TLD'],
  ['b©.com', false, 'copyright sign (So) in a label'],
  ['example.c©m', false, 'copyright sign in the TLD'],
  ['ex®ample.com', false, 'registered sign'],
  ['😀.com', false, 'emoji label'],
  ['a☕b.com', false, 'hot beverage (So)'],
  ['ex€ample.com', false, 'euro sign (Sc)'],
  ['a∑b.com', false, 'n-ary summation (Sm)'],
  ['a«b».com', false, 'guillemets (Pi, Pf)'],
  ['a¡b.com', false, 'inverted exclamation (Po)'],
  ['a‐b.com', false, 'Unicode hyphen U+2010 (Pd)'],
  ['a\u2044b.com', false, 'fraction slash (Sm)'],
  ['a\ue000b.com', false, 'private use'],
  ['a\u0378b.com', false, 'unassigned'],
  ['bücher.de', true, 'Latin letter with diaeresis'],
  ['例子.广告', true, 'Han labels and TLD'],
  ['пример.рф', true, 'Cyrillic labels and TLD'],
  ['नमस्ते.भारत', true, 'Devanagari with marks'],
  ['ｅｘａｍｐｌｅ.com', true, 'full-width letters: UTS #46 maps them to ASCII'],
  ['a\u00adb.com', false, 'soft hyphen: UTS #46 would drop it; refused, not repaired'],
  ['a\u200bb.com', false, 'zero-width space: likewise'],
  ['a\ufe0f.com', false, 'variation selector: likewise'],
  // RFC 5892 §2.4 IgnorableBlocks: marks of these blocks are DISALLOWED though their category is Mn or Mc
  ['x\u20d0y.com', false, 'combining left harpoon above (Mn, Combining Diacritical Marks for Symbols)'],
  ['x\u20e1y.com', false, 'combining left right arrow above (Mn)'],
  ['x\u{1d165}y.com', false, 'musical symbol combining stem (Mc, Musical Symbols)'],
  ['x\u{1d242}y.com', false, 'combining Greek musical triseme (Mn, Ancient Greek Musical Notation)'],
  ['x\u0301y.com', true, 'a combining acute outside those blocks stays valid (x́ has no precomposed form)'],
];

/** A [domain, accepted?, why] table's cases, each tried as x@domain: `kind` names the class in each case's name. */
function domainClass(table: ReadonlyArray<readonly [string, boolean, string]>, kind: string): PluginCase[] {
  return table.map(([domain, accepted, why]) => {
    const email = `x@${domain}`;
    const lower = domain.toLowerCase();
    return accepted ? valid(email, 'x', lower, null, `${kind} accepted: ${why}`) : invalid(email, 'x', lower, `${kind} refused: ${why}`);
  });
}

/** The issue 11 IDN table (UTS #46 nontransitional, then IDNA 2008): [domain, accepted?, why]. */
const IDN_TABLE: ReadonlyArray<readonly [string, boolean, string]> = [
  // ACE labels
  ['xn--bcher-kva.de', true, 'ACE label that decodes to bücher'],
  ['XN--BCHER-KVA.de', true, 'ACE label in upper case'],
  ['xn--zz.com', false, 'ACE label that is not punycode'],
  ['xn--.com', false, 'empty ACE label'],
  ['xn--abc-.com', false, 'ACE label that decodes to ASCII only (abc): does not round-trip'],
  ['Xn--Abc-.com', false, 'the same in mixed case'],
  ['xn--e-xbb.com', false, 'ACE label that decodes to e + combining acute (not NFC)'],
  ['xn--ls8h.la', false, 'ACE label that decodes to an emoji (not IDNA 2008)'],
  ['xn--b-nca.com', false, 'ACE label that decodes to b© (not IDNA 2008)'],
  ['xn--bcher-kva-.de', false, 'ACE label with a trailing hyphen'],
  ['xn--nxasmm1c.gr', true, 'ACE label that decodes to βόλος (final sigma)'],
  // mappings
  ['a\u2488b.com', false, 'U+2488 maps to "1." (introduces a full stop)'],
  ['a\u2024b.com', false, 'one dot leader: maps to a full stop'],
  ['a\ufe52b.com', false, 'small full stop'],
  ['\ufffd.com', false, 'replacement character U+FFFD'],
  ['a\u2100b.com', false, 'U+2100 maps to "a/c" (a disallowed slash)'],
  ['ab--cd.example.com', false, 'ASCII label with hyphens in the 3rd and 4th place (reserved, RFC 5891)'],
  ['a--b.example.com', true, 'double hyphen elsewhere is fine'],
  ['ab--cd.bücher.de', false, 'hyphens in the 3rd and 4th place of a label (checkHyphens)'],
  ['straße.de', true, 'ß stays ß (nontransitional)'],
  ['ΣΑΣ.gr', true, 'capital sigma: UTS #46 folds it to σ'],
  // joiners (CONTEXTJ)
  ['a\u200db.com', false, 'ZWJ between Latin letters'],
  ['a\u200cb.com', false, 'ZWNJ between Latin letters'],
  ['\u0915\u094d\u200d\u0937.com', true, 'ZWJ after a virama'],
  ['\u0645\u200c\u0645.com', true, 'ZWNJ between joining Arabic letters'],
  // CONTEXTO
  ['l\u00b7l.cat', true, 'Catalan l·l'],
  ['a\u00b7b.cat', false, 'middle dot not between l and l'],
  ['ア\u30fbイ.jp', true, 'Katakana middle dot among Katakana'],
  ['ab\u30fbc.jp', false, 'Katakana middle dot among Latin'],
  ['\u0661\u06f1.com', false, 'Arabic-Indic and extended Arabic-Indic digits mixed'],
  // bidi (RFC 5893), judged per label as python-email-validator's idna does
  ['שלום.co.il', true, 'Hebrew label'],
  ['العربية.مصر', true, 'Arabic labels and TLD'],
  ['שלום.1und1.de', true, 'Hebrew label next to a label that starts with a digit'],
  ['\u05d0a.com', false, 'Hebrew then Latin in one label'],
  ['1\u05d0.com', false, 'RTL label starting with a digit'],
  ['\u05d0\u05d1\u0031.co.il', true, 'RTL label ending with a digit'],
];

function localPartClass(): PluginCase[] {
  return LOCAL_PART_TABLE.map(([local, accepted, why]) =>
    accepted
      ? valid(`${local}@example.com`, local, 'example.com', null, `local part accepted: ${why}`)
      : invalid(`${local}@example.com`, local, 'example.com', `local part refused: ${why}`),
  );
}

const cases: PluginCase[] = [
  // dot-atom local parts
  valid('john@example.com', 'john', 'example.com'),
  valid('john.doe@example.com', 'john.doe', 'example.com'),
  valid('John.Doe@Example.COM', 'John.Doe', 'example.com', null, 'local part kept as written, domain lower-cased'),
  valid('user+tag@example.com', 'user+tag', 'example.com'),
  valid("!#$%&'*+-/=?^_`{|}~@example.com", "!#$%&'*+-/=?^_`{|}~", 'example.com', null, 'every atext symbol'),
  valid('a@b', 'a', 'b', null, 'single-label domain is syntax, not structure'),
  valid('x@123.456', 'x', '123.456', null, 'numeric labels are LDH'),
  valid('x@a-b.c-d.com', 'x', 'a-b.c-d.com'),
  valid('x@xn--mnchen-3ya.de', 'x', 'xn--mnchen-3ya.de'),
  // quoted local parts
  valid('"john doe"@example.com', '"john doe"', 'example.com'),
  valid('"john@doe"@example.com', '"john@doe"', 'example.com', null, 'an @ inside quotes does not split'),
  valid('"a\\"b"@example.com', '"a\\"b"', 'example.com', null, 'escaped quote'),
  valid('"a\\\\"@example.com', '"a\\\\"', 'example.com', null, 'escaped backslash'),
  valid('"john..doe"@example.com', '"john..doe"', 'example.com', null, 'dots are free inside quotes'),
  valid('""@example.com', '""', 'example.com', null, 'empty quoted string (local_empty flags it)'),
  valid('"(x),[y]"@example.com', '"(x),[y]"', 'example.com'),
  // internationalised (RFC 6531, IDN)
  valid('josé@example.com', 'josé', 'example.com'),
  valid('用户@例子.广告', '用户', '例子.广告'),
  valid('user@MÜNCHEN.de', 'user', 'münchen.de', null, 'Unicode lower-casing of the domain'),
  valid('x@ΟΔΟΣ1.ΣΑΣ', 'x', 'οδοσ1.σασ', null, 'domain lower-cased a character at a time: capital final sigma is σ, not ς'),
  valid('δοκιμή@παράδειγμα.δοκιμή', 'δοκιμή', 'παράδειγμα.δοκιμή'),
  valid('𝒜𝒷@example.com', '𝒜𝒷', 'example.com', null, 'astral-plane letters'),
  valid('"用户 名"@example.com', '"用户 名"', 'example.com', null, 'non-ASCII inside quotes'),
  // issue 11, local part class: unquoted ASCII that is not atext, alone or next to a dot, and Unicode
  // local parts (RFC 6531) of letters, marks and numbers only, in NFC
  ...localPartClass(),
  // issue 11, domain label class: letters, digits and hyphens only (after IDNA for Unicode labels)
  ...domainClass(DOMAIN_LABEL_TABLE, 'domain'),
  // issue 11, IDN class
  ...domainClass(IDN_TABLE, 'IDN'),
  // address literals
  valid('x@[192.168.0.1]', 'x', '[192.168.0.1]', 'ipv4'),
  valid('x@[IPv6:2001:db8::1]', 'x', '[ipv6:2001:db8::1]', 'ipv6'),
  valid('x@[ipv6:::1]', 'x', '[ipv6:::1]', 'ipv6', 'lower-case tag'),
  valid('x@[IPv6:::ffff:192.0.2.1]', 'x', '[ipv6:::ffff:192.0.2.1]', 'ipv6', 'IPv4-mapped IPv6'),
  // no @
  invalid('', null, null, 'empty input'),
  invalid('john.example.com', null, null),
  invalid('"a"', null, null, 'quoted string alone'),
  // the local part
  invalid('@example.com', '', 'example.com', 'empty local part'),
  invalid('.john@example.com', '.john', 'example.com'),
  invalid('john.@example.com', 'john.', 'example.com'),
  invalid('john..doe@example.com', 'john..doe', 'example.com'),
  invalid('john doe@example.com', 'john doe', 'example.com'),
  invalid('john,doe@example.com', 'john,doe', 'example.com'),
  invalid('[john]@example.com', '[john]', 'example.com'),
  invalid('john\\doe@example.com', 'john\\doe', 'example.com', 'backslash outside quotes'),
  invalid('a@b@example.com', 'a@b', 'example.com', 'split at the last @'),
  invalid('john(comment)@example.com', 'john(comment)', 'example.com', 'comments are not accepted'),
  invalid('(comment)john@example.com', '(comment)john', 'example.com', 'leading comment'),
  invalid('jo\u0000hn@example.com', 'jo\u0000hn', 'example.com', 'NUL'),
  invalid('jo\thn@example.com', 'jo\thn', 'example.com', 'tab'),
  invalid('jo\u007fhn@example.com', 'jo\u007fhn', 'example.com', 'DEL'),
  invalid('jo\u0085hn@example.com', 'jo\u0085hn', 'example.com', 'C1 control'),
  invalid('jo\u00a0hn@example.com', 'jo\u00a0hn', 'example.com', 'no-break space'),
  invalid('jo\ud800hn@example.com', 'jo\ud800hn', 'example.com', 'unpaired surrogate'),
  invalid('"a"b"@example.com', '"a"b"', 'example.com', 'unescaped quote inside quotes'),
  invalid('"a\\"@example.com', '"a\\"', 'example.com', 'escaped closing quote leaves it unclosed'),
  invalid('"abc@example.com', '"abc', 'example.com', 'unclosed quote'),
  invalid('"a".b@example.com', '"a".b', 'example.com', 'obsolete mixed quoted and atom'),
  invalid('"a\tb"@example.com', '"a\tb"', 'example.com', 'tab inside quotes'),
  invalid('"a\\\u00e9"@example.com', '"a\\\u00e9"', 'example.com', 'quoted-pair of a non-ASCII character'),
  // spaces around
  invalid(' john@example.com', ' john', 'example.com', 'leading space'),
  invalid('john@example.com ', 'john', 'example.com ', 'trailing space'),
  // the domain
  invalid('john@', 'john', '', 'empty domain'),
  invalid('john@example.com.', 'john', 'example.com.', 'trailing dot'),
  invalid('john@.example.com', 'john', '.example.com'),
  invalid('john@example..com', 'john', 'example..com'),
  invalid('john@-example.com', 'john', '-example.com'),
  invalid('john@example-.com', 'john', 'example-.com'),
  invalid('john@ex_ample.com', 'john', 'ex_ample.com', 'underscore is not LDH'),
  invalid('john@exa mple.com', 'john', 'exa mple.com'),
  invalid('john@example.com,x.com', 'john', 'example.com,x.com'),
  invalid('john@ex[ample].com', 'john', 'ex[ample].com', 'brackets outside a literal'),
  // UTS #46 maps the three ideographic full stops to '.' before splitting labels (issue 51), as browsers do.
  valid('john@例子。广告', 'john', '例子.广告', null, 'ideographic full stop: a label separator'),
  valid('jane@日本語。jp', 'jane', '日本語.jp', null, 'ideographic full stop before an ASCII TLD'),
  valid('jane@example．com', 'jane', 'example.com', null, 'full-width full stop'),
  valid('jane@example｡com', 'jane', 'example.com', null, 'half-width ideographic full stop'),
  valid('jane@mail。例子．广告', 'jane', 'mail.例子.广告', null, 'two kinds in one domain'),
  invalid('jane@example。。com', 'jane', 'example..com', 'two full stops in a row: an empty label'),
  invalid('jane@。example.com', 'jane', '.example.com', 'a leading full stop: an empty label'),
  invalid('jane@example.com。', 'jane', 'example.com.', 'a trailing full stop, as a trailing dot'),
  invalid('ja。ne@example.com', 'ja。ne', 'example.com', 'in the local part it is punctuation, not a separator'),
  // address literals
  invalid('x@[256.1.1.1]', 'x', '[256.1.1.1]'),
  invalid('x@[1.2.3]', 'x', '[1.2.3]'),
  invalid('x@[01.2.3.4]', 'x', '[01.2.3.4]', 'leading zero'),
  invalid('x@[IPv6:1::2::3]', 'x', '[ipv6:1::2::3]'),
  invalid('x@[IPv6:fe80::1%eth0]', 'x', '[ipv6:fe80::1%eth0]', 'zone id'),
  invalid('x@[2001:db8::1]', 'x', '[2001:db8::1]', 'IPv6 without its tag'),
  invalid('x@[IPv6:1.2.3.4]', 'x', '[ipv6:1.2.3.4]', 'IPv4 under the IPv6 tag'),
  invalid('x@[tag:content]', 'x', '[tag:content]', 'general literal'),
  invalid('x@[1.2.3.4', 'x', '[1.2.3.4', 'unclosed literal'),
  invalid('x@[1.2.3.4].com', 'x', '[1.2.3.4].com'),
  {
    name: 'valid literal with an invalid local part',
    email: 'a..b@[1.2.3.4]',
    facts: { valid_address_format: false, domain_literal: 'ipv4' },
    fires: ['structure'],
  },
  // pathological long inputs: the parser is linear, these finish at once
  valid(`${longDots}a@example.com`, `${longDots}a`, 'example.com', null, '100k characters of "a." in the local part'),
  invalid(`${longDots}@example.com`, longDots, 'example.com', '100k characters of "a." ending with a dot'),
  valid(`x@${longDots}com`, 'x', `${longDots}com`, null, '100k characters of "a." in the domain'),
  invalid('@'.repeat(100_000), '@'.repeat(99_999), '', '100k @'),
  invalid('"'.repeat(100_001), null, null, '100k quotes and no @'),
  invalid(`${'"'.repeat(100_001)}@x.com`, '"'.repeat(100_001), 'x.com', '100k quotes, unbalanced'),
  invalid(`"${'\\'.repeat(100_000)}@x.com`, `"${'\\'.repeat(100_000)}`, 'x.com', '100k backslashes in quotes'),
  invalid(`x@[IPv6:${'1:'.repeat(50_000)}]`, 'x', `[ipv6:${'1:'.repeat(50_000)}]`, '100k characters of IPv6 literal'),
];

testPlugin(structure, cases);

it('structure: its steps are its checks (it has no signal steps)', () => {
  expect([...structure.steps].sort()).toEqual(Object.keys(structure.checks).sort());
});

describe('parseAddress', () => {
  it('is exported for its own tests and agrees with the plugin', () => {
    expect(parseAddress('"john doe"@[IPv6:::1]')).toEqual({
      valid: true,
      localPart: '"john doe"',
      domain: '[ipv6:::1]',
      domainLiteral: 'ipv6',
    });
    expect(parseAddress('no-at-sign')).toEqual({ valid: false, localPart: null, domain: null, domainLiteral: null });
  });
});
