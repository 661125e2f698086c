import { describe, expect, it } from 'vitest';
import { testPlugin } from '../../test/support/plugin-tester.js';
import { shapeOf } from '../label-shape.js';
import { looksGenerated } from './generated-label.js';
import domainShape from './index.js';

const detected = { looks_generated_domain: true, abused_tld: true, random_domain_signal: 'detected' };
const wordOnAbusedTld = { looks_generated_domain: false, abused_tld: true, random_domain_signal: 'none' };
const ordinary = { looks_generated_domain: false, abused_tld: false, random_domain_signal: 'none' };
const unknown = { looks_generated_domain: null, abused_tld: null, random_domain_signal: null };

testPlugin(domainShape, [
  // Machine-made names on TLDs over-represented among throwaway domains: the signal.
  { email: 'a@xkqzv7.xyz', facts: detected },
  { email: 'a@q8w3ejd.top', facts: detected },
  { email: 'a@a1b2c3d.icu', facts: detected },
  { email: 'a@kdjfhgqw.tk', facts: detected },
  { email: 'a@xkqzvbap.online', facts: detected },
  { email: 'a@zxcvbnm.site', facts: detected },
  { email: 'a@7xusq8vbim5d47.store', facts: detected },
  { name: 'judged on the registrable domain, not the subdomain', email: 'a@mail.xkqzv7.xyz', facts: detected },
  { name: 'capitals (structure lower-cases)', email: 'a@XKQZV7.XYZ', facts: detected },
  // The same names elsewhere: generated, but not on a listed TLD.
  { email: 'a@xkqzv7.com', facts: { looks_generated_domain: true, abused_tld: false, random_domain_signal: 'none' } },
  { email: 'a@q8w3ejd.de', facts: { looks_generated_domain: true, abused_tld: false, random_domain_signal: 'none' } },
  // Top free providers and short brands: never.
  { email: 'a@gmail.com', facts: ordinary },
  { email: 'a@x.com', facts: ordinary },
  { email: 'a@t.co', facts: ordinary },
  { email: 'a@qq.com', facts: ordinary },
  { email: 'a@163.com', facts: ordinary },
  { email: 'a@126.com', facts: ordinary },
  { email: 'a@gmx.de', facts: ordinary },
  { email: 'a@wp.pl', facts: ordinary },
  { email: 'a@o2.pl', facts: ordinary },
  { email: 'a@hotmail.co.uk', facts: ordinary },
  { email: 'a@yahoo.co.jp', facts: ordinary },
  { email: 'a@mail.ru', facts: ordinary },
  { email: 'a@web.de', facts: ordinary },
  { email: 'a@proton.me', facts: ordinary },
  { email: 'a@seznam.cz', facts: ordinary },
  { email: 'a@naver.com', facts: ordinary },
  { email: 'a@rambler.ru', facts: ordinary },
  { email: 'a@bbc.co.uk', facts: ordinary },
  { email: 'a@ibm.com', facts: ordinary },
  { email: 'a@w3schools.com', facts: ordinary },
  // Ordinary names on a listed TLD: the TLD alone says nothing.
  { name: 'a short brand on .xyz (Alphabet)', email: 'a@abc.xyz', facts: wordOnAbusedTld },
  { email: 'a@strengths.xyz', facts: wordOnAbusedTld },
  { email: 'a@rhythm.top', facts: wordOnAbusedTld },
  { email: 'a@my-shop.store', facts: wordOnAbusedTld },
  { email: 'a@club4x4.club', facts: wordOnAbusedTld },
  { email: 'a@mp3shop4u.online', facts: wordOnAbusedTld },
  { email: 'a@w3schools.site', facts: wordOnAbusedTld },
  { email: 'a@blitzschlag.shop', facts: wordOnAbusedTld },
  { email: 'a@schlachtschiff.online', facts: wordOnAbusedTld },
  { email: 'a@szczecin.tech', facts: wordOnAbusedTld },
  { email: 'a@1234567.top', facts: wordOnAbusedTld },
  { email: 'a@aaaa1111.xyz', facts: wordOnAbusedTld },
  { name: 'IDN label is not judged', email: 'a@bücher.xyz', facts: wordOnAbusedTld },
  // Nothing to judge.
  { name: 'the domain is a public suffix', email: 'a@co.uk', facts: { looks_generated_domain: null, abused_tld: false, random_domain_signal: null } },
  { name: 'IPv4 literal', email: 'a@[192.0.2.1]', facts: unknown },
  { name: 'invalid address', email: 'a..b@xkqzv7.xyz', facts: unknown },
  { email: 'plainaddress', facts: unknown },
]);

describe('looksGenerated', () => {
  it.each([
    ['xkqzv7', true],
    ['bcdfgh', true],
    ['q8w3ejd', true],
    ['a1b2c3d', true],
    ['xkqzvbap', true],
    ['club4x4', false],
    ['mp3shop4u', false],
    ['strengths', false],
    ['rhythms', false],
    ['schlachtschiff', false],
    ['abschlussschnitt', false],
    ['gmx', false],
    ['10086', false],
    ['xn--bcher-kva', false],
  ])('%s → %s', (label, expected) => {
    expect(looksGenerated(label)).toBe(expected);
  });

  it('counts the letter-class shape', () => {
    expect(shapeOf('q8w3ejd')).toEqual({ letters: 5, vowels: 1, digits: 2, switches: 4, consonantRun: 2, distinct: 7 });
  });
});
