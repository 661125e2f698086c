import { describe, expect, it } from 'vitest';
import type { FactValues } from '../../src/engine/plugin.js';
import { testPlugin } from '../../test/support/plugin-tester.js';
import { shapeOf } from '../label-shape.js';
import { looksGenerated } from './generated-label.js';
import domainShape from './index.js';

const detected = { looks_generated_domain: true, abused_tld: true, random_domain_signal: 'detected' };
const wordOnAbusedTld = { looks_generated_domain: false, abused_tld: true, random_domain_signal: 'none' };
const ordinary = { looks_generated_domain: false, abused_tld: false, random_domain_signal: 'none' };
const unknown = { looks_generated_domain: null, abused_tld: null, random_domain_signal: null };
/** One row a domain: the mailbox a@domain, the same facts expected of each. */
const atEach = (domains: string[], facts: FactValues) => domains.map((domain) => ({ email: `a@${domain}`, facts }));

testPlugin(domainShape, [
  // Machine-made names on TLDs over-represented among throwaway domains: the signal.
  ...atEach(['xkqzv7.xyz', 'q8w3ejd.top', 'a1b2c3d.icu', 'kdjfhgqw.tk', 'xkqzvbap.online', 'zxcvbnm.site', '7xusq8vbim5d47.store'], detected),
  { name: 'judged on the registrable domain, not the subdomain', email: 'a@mail.xkqzv7.xyz', facts: detected },
  { name: 'capitals (structure lower-cases)', email: 'a@XKQZV7.XYZ', facts: detected },
  // The same names elsewhere: generated, but not on a listed TLD.
  { email: 'a@xkqzv7.com', facts: { looks_generated_domain: true, abused_tld: false, random_domain_signal: 'none' } },
  { email: 'a@q8w3ejd.de', facts: { looks_generated_domain: true, abused_tld: false, random_domain_signal: 'none' } },
  // Top free providers and short brands: never.
  ...atEach(
    [
      'gmail.com',
      'x.com',
      't.co',
      'qq.com',
      '163.com',
      '126.com',
      'gmx.de',
      'wp.pl',
      'o2.pl',
      'hotmail.co.uk',
      'yahoo.co.jp',
      'mail.ru',
      'web.de',
      'proton.me',
      'seznam.cz',
      'naver.com',
      'rambler.ru',
      'bbc.co.uk',
      'ibm.com',
      'w3schools.com',
    ],
    ordinary,
  ),
  // Ordinary names on a listed TLD: the TLD alone says nothing.
  { name: 'a short brand on .xyz (Alphabet)', email: 'a@abc.xyz', facts: wordOnAbusedTld },
  ...atEach(
    [
      'strengths.xyz',
      'rhythm.top',
      'my-shop.store',
      'club4x4.club',
      'mp3shop4u.online',
      'w3schools.site',
      'blitzschlag.shop',
      'schlachtschiff.online',
      'szczecin.tech',
      '1234567.top',
      'aaaa1111.xyz',
    ],
    wordOnAbusedTld,
  ),
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
