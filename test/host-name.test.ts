// Host names and the forms of a domain: the one module plugins and the network layer share.
import { describe, expect, it } from 'vitest';
import {
  asciiDomain,
  domainAndParents,
  hostName,
  isIdna2008Label,
  type LabelRule,
  lowerCaseName,
  selfAndParents,
  toAsciiForm,
  unicodeDomain,
} from '../src/host-name.js';

describe('hostName', () => {
  const long = `${'a'.repeat(250)}.com`;
  const label64 = `${'a'.repeat(64)}.com`;
  it.each<[string, LabelRule, string | null]>([
    ['Example.COM', 'dns', 'example.com'],
    ['example.com.', 'dns', 'example.com'],
    ['_dmarc.example.com', 'dns', '_dmarc.example.com'],
    ['_dmarc.example.com', 'ldh', null],
    ['ex-ample.com', 'ldh', 'ex-ample.com'],
    ['localhost', 'ldh', 'localhost'],
    ['', 'dns', null],
    ['.', 'dns', null],
    ['a..b.com', 'dns', null],
    ['.example.com', 'dns', null],
    [label64, 'dns', null],
    [long, 'dns', null],
    ['bücher.de', 'dns', null],
    ['ex!ample.com', 'dns', null],
    ['ex!ample.com', 'any', 'ex!ample.com'],
    [label64, 'any', label64],
    ['a..b.com', 'any', null],
    ['.example.com', 'any', null],
    ['bücher.de', 'any', null],
    [long, 'any', null],
  ])('%j under %s → %j', (text, rule, expected) => {
    expect(hostName(text, rule)).toBe(expected);
  });
});

describe('the ASCII and Unicode forms of a domain', () => {
  it('keeps an ASCII domain as written (lower-cased), even with a bad xn-- label', () => {
    expect(asciiDomain('Example.COM')).toBe('example.com');
    expect(asciiDomain('xn--zz.example')).toBe('xn--zz.example');
  });
  it('converts a Unicode domain with UTS #46 nontransitional processing (ß stays ß)', () => {
    expect(asciiDomain('Bücher.example')).toBe('xn--bcher-kva.example');
    expect(asciiDomain('straße.de')).toBe('xn--strae-oqa.de');
  });
  it('refuses what IDNA refuses', () => {
    expect(asciiDomain('a\u200db.example')).toBeNull(); // a joiner without the context CONTEXTJ requires
  });
  it('refuses rather than repairs: ACE labels that do not round-trip, symbols IDNA 2008 disallows', () => {
    expect(toAsciiForm('XN--BCHER-KVA.example')).toBe('xn--bcher-kva.example');
    expect(toAsciiForm('xn--abc-.example')).toBeNull(); // decodes to "abc", which encodes to itself
    expect(toAsciiForm('xn--b-nca.example')).toBeNull(); // b©
    expect(toAsciiForm('b©.example')).toBeNull();
    expect(toAsciiForm('a\u2488b.example')).toBeNull(); // maps to "a1.b"
    expect(toAsciiForm('bücher.example.')).toBe('xn--bcher-kva.example.'); // one root dot is kept
    expect(isIdna2008Label('bücher')).toBe(true);
    expect(isIdna2008Label('a\u0640b')).toBe(false); // Arabic tatweel: an RFC 5892 exception
    expect(isIdna2008Label('x\u20d0y')).toBe(false); // RFC 5892 IgnorableBlocks: a mark for symbols (Mn)
    expect(isIdna2008Label('x\u{1d165}y')).toBe(false); // and a musical mark (Mc)
    expect(isIdna2008Label('x\u0301y')).toBe(true); // a mark of another block
  });
  it('applies the bidi rule per label, as python-email-validator does', () => {
    expect(toAsciiForm('שלום.1und1.de')).toBe('xn--9dbne9b.1und1.de');
    expect(toAsciiForm('1שלום.de')).toBeNull();
  });
  it('lower-cases a name a character at a time (no word-final ς)', () => {
    expect(lowerCaseName('ΟΔΟΣ1.GR')).toBe('οδοσ1.gr');
    expect('ΟΔΟΣ1.GR'.toLowerCase()).toBe('οδος1.gr');
  });
  it('decodes punycode labels', () => {
    expect(unicodeDomain('xn--bcher-kva.example')).toEqual({ domain: 'bücher.example', error: false });
    expect(unicodeDomain('xn--zz.example').error).toBe(true);
  });
  it('gives the same forms from its memo as on first sight, refusals included, also once the memo has turned over', () => {
    const names = ['bücher.example', 'xn--b-nca.example', 'a\u200db.example', 'example.com', 'xn--zz.example'];
    const first = names.map((name) => [toAsciiForm(name), unicodeDomain(name)]);
    expect(first.map(([ascii]) => ascii)).toEqual(['xn--bcher-kva.example', null, null, 'example.com', null]);
    expect(names.map((name) => [toAsciiForm(name), unicodeDomain(name)])).toEqual(first);
    for (let i = 0; i < 10_050; i++) toAsciiForm(`n${i}.example`);
    expect(names.map((name) => [toAsciiForm(name), unicodeDomain(name)])).toEqual(first);
  });
  it('hands out a remembered Unicode form that cannot be changed by a caller', () => {
    const form = unicodeDomain('xn--bcher-kva.example');
    expect(() => Object.assign(form, { error: true })).toThrow(TypeError);
    expect(unicodeDomain('xn--bcher-kva.example')).toEqual({ domain: 'bücher.example', error: false });
  });
});

describe("a domain's parents", () => {
  it('lists a domain and every parent down to its top-level label', () => {
    expect(selfAndParents('a.b.gov.uk')).toEqual(['a.b.gov.uk', 'b.gov.uk', 'gov.uk', 'uk']);
    expect(selfAndParents('localhost')).toEqual(['localhost']);
  });
  it('walks a domain up to its registrable domain', () => {
    expect(domainAndParents('a.b.example.co.uk', 'example.co.uk')).toEqual(['a.b.example.co.uk', 'b.example.co.uk', 'example.co.uk']);
    expect(domainAndParents('example.co.uk', 'example.co.uk')).toEqual(['example.co.uk']);
    expect(domainAndParents('co.uk', null)).toEqual(['co.uk']);
    expect(domainAndParents('xexample.co.uk', 'example.co.uk')).toEqual(['xexample.co.uk']);
  });
});
