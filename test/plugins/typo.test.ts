import { describe, expect, it } from 'vitest';
import typo from '../../plugins/typo/index.js';
import { readPopularDomains } from '../../plugins/typo/popular-domains.js';
import { TypoSuggester } from '../../plugins/typo/suggest.js';
import { firedCodes, testPlugin } from '../support/plugin-tester.js';

const typoOf = (email: string) => {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  return { has_typo_mismatch: true, suggested_domain: domain, corrected_email: email };
};
const none = { has_typo_mismatch: false, suggested_domain: null, corrected_email: null };
const unknown = { has_typo_mismatch: null, suggested_domain: null, corrected_email: null };

testPlugin(typo, [
  // Near misses of popular domains.
  { email: 'jane@gmial.com', facts: typoOf('jane@gmail.com') },
  { email: 'jane@hotmial.co.uk', facts: typoOf('jane@hotmail.co.uk') },
  { email: 'jane@yahooo.com', facts: typoOf('jane@yahoo.com') },
  { email: 'jane@gmail.con', facts: typoOf('jane@gmail.com') },
  { email: 'jane@outlok.com', facts: typoOf('jane@outlook.com') },
  { email: 'jane@gmai.com', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gamil.com', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gnail.com', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmaill.com', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmail.co', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmail.cm', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmail.om', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmail.ocm', facts: typoOf('jane@gmail.com') },
  { email: 'jane@gmail.comm', facts: typoOf('jane@gmail.com') },
  { name: 'two typos, one in the name and one in the suffix', email: 'jane@gmial.con', facts: typoOf('jane@gmail.com') },
  { name: 'missing dot (single label)', email: 'jane@gmailcom', facts: typoOf('jane@gmail.com') },
  { email: 'jane@hotmai.com', facts: typoOf('jane@hotmail.com') },
  { email: 'jane@hotnail.com', facts: typoOf('jane@hotmail.com') },
  { email: 'jane@hotmail.co', facts: typoOf('jane@hotmail.com') },
  { email: 'jane@hotmai.fr', facts: typoOf('jane@hotmail.fr') },
  { email: 'jane@yhaoo.com', facts: typoOf('jane@yahoo.com') },
  { name: '.cm is one edit from both .com and .ca: the more used wins', email: 'jane@yahoo.cm', facts: typoOf('jane@yahoo.com') },
  { email: 'jane@yahoo.co', facts: typoOf('jane@yahoo.com') },
  { email: 'jane@outlook.con', facts: typoOf('jane@outlook.com') },
  { email: 'jane@iclod.com', facts: typoOf('jane@icloud.com') },
  { email: 'jane@comcst.net', facts: typoOf('jane@comcast.net') },
  { email: 'jane@sbcglobal.ne', facts: typoOf('jane@sbcglobal.net') },
  { email: 'jane@protonmial.com', facts: typoOf('jane@protonmail.com') },
  { email: 'jane@yandx.ru', facts: typoOf('jane@yandex.ru') },
  { email: 'jane@googlmail.com', facts: typoOf('jane@googlemail.com') },
  { name: 'short names: only the suffix is corrected', email: 'jane@aol.con', facts: typoOf('jane@aol.com') },
  { email: 'jane@qq.con', facts: typoOf('jane@qq.com') },
  { email: 'jane@gmx.dee', facts: typoOf('jane@gmx.de') },
  { email: 'jane@web.dr', facts: typoOf('jane@web.de') },
  { name: 'local part kept as written', email: 'Jane.Doe+news@GMIAL.com', facts: typoOf('Jane.Doe+news@gmail.com') },
  { name: 'quoted local part kept', email: '"jane doe"@gmial.com', facts: typoOf('"jane doe"@gmail.com') },
  // Real domains: never corrected.
  { email: 'jane@gmail.com', facts: none },
  { name: 'mail.com is a real provider, not a typo of gmail.com', email: 'jane@mail.com', facts: none },
  { email: 'jane@email.com', facts: none },
  { email: 'jane@gmx.com', facts: none },
  { email: 'jane@gmx.de', facts: none },
  { email: 'jane@web.de', facts: none },
  { email: 'jane@aol.com', facts: none },
  { email: 'jane@aim.com', facts: none },
  { email: 'jane@ymail.com', facts: none },
  { email: 'jane@hotmail.fr', facts: none },
  { email: 'jane@live.co.uk', facts: none },
  { email: 'jane@yandex.ru', facts: none },
  { email: 'jane@yahoo.fr', facts: none },
  { email: 'jane@yahoo.co.jp', facts: none },
  { email: 'jane@outlook.de', facts: none },
  { name: 'national Outlook domain outside the popular list (free-provider says real)', email: 'jane@outlook.dk', facts: none },
  { name: 'national Yahoo domain outside the popular list', email: 'jane@yahoo.ie', facts: none },
  { name: 'rare free provider one edit from gmail.com', email: 'jane@xmail.com', facts: none },
  { name: 'rare free provider one edit from email.com', email: 'jane@3email.com', facts: none },
  { name: 'education domain', email: 'jane@mit.edu', facts: none },
  // Business domains close to provider names: not typos.
  { email: 'jane@example.com', facts: none },
  { name: 'a business name containing a provider name', email: 'jane@gmaill-consulting.com', facts: none },
  { name: 'AIG is one letter from aim.com: short names are never changed', email: 'jane@aig.com', facts: none },
  { email: 'jane@ibm.com', facts: none },
  { email: 'jane@box.com', facts: none },
  { email: 'jane@cnn.com', facts: none },
  { name: 'Hotmart is two letters from hotmail.com', email: 'jane@hotmart.com', facts: none },
  { name: 'company domain of a provider', email: 'jane@comcast.com', facts: none },
  { email: 'jane@verizon.com', facts: none },
  { email: 'jane@att.com', facts: none },
  { email: 'jane@orange.com', facts: none },
  { name: 'known name with another known suffix is left alone', email: 'jane@gmail.de', facts: none },
  { email: 'jane@web.com', facts: none },
  { name: 'vanity word domains are no targets', email: 'jane@europa.com', facts: none },
  { email: 'jane@horizon.net', facts: none },
  { email: 'jane@acme.co', facts: none },
  { name: 'mail.google.com is not a typo of gmail.com', email: 'jane@mail.google.com', facts: none },
  { name: 'a country gmail does not offer is not guessed', email: 'jane@gmial.fr', facts: none },
  { name: 'liv.com: four-letter names are never changed', email: 'jane@liv.com', facts: none },
  { name: 'IDN domain', email: 'jane@gmaïl.com', facts: none },
  // No valid domain: unknown.
  { name: 'invalid address', email: 'jane..doe@gmial.com', facts: unknown },
  { name: 'IPv4 literal', email: 'jane@[192.168.0.1]', facts: unknown },
  { name: 'no @', email: 'plainaddress', facts: unknown },
  { name: 'empty domain', email: 'jane@', facts: unknown },
]);

describe('typo_detection check', () => {
  it.each([
    ['jane@gmial.com', ['domain_typo_detected']],
    ['jane@gmail.com', []],
    ['jane@mail.com', []],
    ['jane@example.com', []],
    ['plainaddress', []],
  ])('%s fires %j', async (email, codes) => {
    expect(await firedCodes(typo, email)).toEqual(codes);
  });
});

describe('TypoSuggester', () => {
  const suggester = new TypoSuggester(readPopularDomains());

  it('never suggests for a popular domain, and suggests only popular domains', () => {
    const popular = readPopularDomains();
    expect(popular.length).toBeGreaterThan(100);
    for (const domain of popular) expect(suggester.suggest(domain), domain).toBeNull();
    for (const typoed of ['gmial.com', 'yahooo.com', 'hotmial.co.uk']) expect(popular).toContain(suggester.suggest(typoed));
  });

  it('would correct those free-provider domains: the guard on is_free_provider_domain is what spares them', () => {
    expect(suggester.suggest('outlook.dk')).toBe('outlook.de');
    expect(suggester.suggest('yahoo.ie')).toBe('yahoo.it');
    expect(suggester.suggest('xmail.com')).toBe('gmail.com');
    expect(suggester.suggest('3email.com')).toBe('email.com');
  });

  it('accepts one edit in the name and one in the suffix, not more', () => {
    expect(suggester.suggest('hotmial.com')).toBe('hotmail.com');
    expect(suggester.suggest('hotmial.con')).toBe('hotmail.com');
    expect(suggester.suggest('hotmial.cmo')).toBe('hotmail.com');
    expect(suggester.suggest('htomial.com')).toBeNull(); // two edits in the name
    expect(suggester.suggest('hotmial.cmoo')).toBeNull(); // two in the suffix
    expect(suggester.suggest('gmail.cmoo')).toBeNull();
    expect(suggester.suggest('mail.lv')).toBeNull(); // another country code is no slip: lv -> ru is two edits
    expect(suggester.suggest('gmail.c')).toBeNull(); // c -> com is two edits
    expect(suggester.suggest('gmail')).toBeNull(); // a bare name: four edits
  });

  it("keeps the candidate step's choices, which no Damerau-Levenshtein search reproduces", () => {
    expect(suggester.suggest('jmail.com')).toBe('gmail.com');
    expect(suggester.suggest('mmail.com')).toBeNull();
    expect(suggester.suggest('yeah.het')).toBe('yeah.net');
    expect(suggester.suggest('yeah.tet')).toBeNull();
  });

  it('takes linear time on a long domain', () => {
    const long = `${'a'.repeat(240)}.com`;
    const start = performance.now();
    expect(suggester.suggest(long)).toBeNull();
    expect(performance.now() - start).toBeLessThan(200);
  });
});
