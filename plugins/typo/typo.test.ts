import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checksPolicy, decisionFor, evaluateFor, testPlugin } from '../../test/support/plugin-tester.js';
import typo from './index.js';
import { readCommonSuffixes, readKnownDomains, readPopularDomains } from './popular-domains.js';
import { isOneSlip, ShortNameCorrector } from './short-names.js';
import { isDelegatedTld, SuffixCorrector } from './suffix.js';
import { TypoSuggester } from './suggest.js';

const typoOf = (email: string) => {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  return { has_typo_mismatch: true, suggested_domain: domain, corrected_email: email };
};
const none = { has_typo_mismatch: false, suggested_domain: null, corrected_email: null };
const unknown = { has_typo_mismatch: null, suggested_domain: null, corrected_email: null };

testPlugin(typo, [
  // Near misses of popular domains.
  { email: 'jane@gmial.com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@hotmial.co.uk', facts: typoOf('jane@hotmail.co.uk'), fires: ['typo_detection'] },
  { email: 'jane@yahooo.com', facts: typoOf('jane@yahoo.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.con', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@outlok.com', facts: typoOf('jane@outlook.com'), fires: ['typo_detection'] },
  { email: 'jane@gmai.com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gamil.com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gnail.com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmaill.com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.co', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.cm', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.om', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.ocm', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@gmail.comm', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { name: 'two typos, one in the name and one in the suffix', email: 'jane@gmial.con', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { name: 'missing dot (single label)', email: 'jane@gmailcom', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { email: 'jane@hotmai.com', facts: typoOf('jane@hotmail.com'), fires: ['typo_detection'] },
  { email: 'jane@hotnail.com', facts: typoOf('jane@hotmail.com'), fires: ['typo_detection'] },
  { email: 'jane@hotmail.co', facts: typoOf('jane@hotmail.com'), fires: ['typo_detection'] },
  { email: 'jane@hotmai.fr', facts: typoOf('jane@hotmail.fr'), fires: ['typo_detection'] },
  { email: 'jane@yhaoo.com', facts: typoOf('jane@yahoo.com'), fires: ['typo_detection'] },
  { name: '.cm is one edit from both .com and .ca: the more used wins', email: 'jane@yahoo.cm', facts: typoOf('jane@yahoo.com'), fires: ['typo_detection'] },
  { email: 'jane@yahoo.co', facts: typoOf('jane@yahoo.com'), fires: ['typo_detection'] },
  { email: 'jane@outlook.con', facts: typoOf('jane@outlook.com'), fires: ['typo_detection'] },
  { email: 'jane@iclod.com', facts: typoOf('jane@icloud.com'), fires: ['typo_detection'] },
  { email: 'jane@comcst.net', facts: typoOf('jane@comcast.net'), fires: ['typo_detection'] },
  { email: 'jane@sbcglobal.ne', facts: typoOf('jane@sbcglobal.net'), fires: ['typo_detection'] },
  { email: 'jane@protonmial.com', facts: typoOf('jane@protonmail.com'), fires: ['typo_detection'] },
  { email: 'jane@yandx.ru', facts: typoOf('jane@yandex.ru'), fires: ['typo_detection'] },
  { email: 'jane@googlmail.com', facts: typoOf('jane@googlemail.com'), fires: ['typo_detection'] },
  { name: 'short names: only the suffix is corrected', email: 'jane@aol.con', facts: typoOf('jane@aol.com'), fires: ['typo_detection'] },
  { email: 'jane@qq.con', facts: typoOf('jane@qq.com'), fires: ['typo_detection'] },
  { email: 'jane@gmx.dee', facts: typoOf('jane@gmx.de'), fires: ['typo_detection'] },
  { email: 'jane@web.dr', facts: typoOf('jane@web.de'), fires: ['typo_detection'] },
  { name: 'local part kept as written', email: 'Jane.Doe+news@GMIAL.com', facts: typoOf('Jane.Doe+news@gmail.com'), fires: ['typo_detection'] },
  { name: 'quoted local part kept', email: '"jane doe"@gmial.com', facts: typoOf('"jane doe"@gmail.com'), fires: ['typo_detection'] },
  // Real domains: never corrected.
  { email: 'jane@gmail.com', facts: none, fires: [] },
  // Retired country codes: an old address as it was written, never a slip for a live TLD (issue 51).
  { name: 'retired .yu is no .ru', email: 'jane@mail.yu', facts: none, fires: [] },
  { name: 'retired .yu, under a second level', email: 'jane@eunet.co.yu', facts: none, fires: [] },
  { name: 'retired .yu: no popular domain either', email: 'jane@gmail.yu', facts: none, fires: [] },
  { name: 'retired .tp is no .jp', email: 'jane@mail.tp', facts: none, fires: [] },
  { name: 'retired .zr is no .fr', email: 'jane@acme.zr', facts: none, fires: [] },
  { name: 'retired .an is no .at', email: 'jane@mail.an', facts: none, fires: [] },
  { name: 'retired .bu is no .ru', email: 'jane@acme.bu', facts: none, fires: [] },
  { name: 'retired .cs is no .ca', email: 'jane@hotmail.cs', facts: none, fires: [] },
  { name: 'retired .dd is no .de', email: 'jane@acme.dd', facts: none, fires: [] },
  { name: 'retired .um is no .us', email: 'jane@acme.um', facts: none, fires: [] },
  { name: 'retired, in capitals', email: 'JANE@MAIL.YU', facts: none, fires: [] },
  { name: 'a retired code as a label left of the TLD is no retired TLD', email: 'jane@yu.cmo', facts: typoOf('jane@yu.com'), fires: ['typo_detection'] },
  { name: 'mail.com is a real provider, not a typo of gmail.com', email: 'jane@mail.com', facts: none, fires: [] },
  { email: 'jane@email.com', facts: none, fires: [] },
  { email: 'jane@gmx.com', facts: none, fires: [] },
  { email: 'jane@gmx.de', facts: none, fires: [] },
  { email: 'jane@web.de', facts: none, fires: [] },
  { email: 'jane@aol.com', facts: none, fires: [] },
  { email: 'jane@aim.com', facts: none, fires: [] },
  { email: 'jane@ymail.com', facts: none, fires: [] },
  { email: 'jane@hotmail.fr', facts: none, fires: [] },
  { email: 'jane@live.co.uk', facts: none, fires: [] },
  { email: 'jane@yandex.ru', facts: none, fires: [] },
  { email: 'jane@yahoo.fr', facts: none, fires: [] },
  { email: 'jane@yahoo.co.jp', facts: none, fires: [] },
  { email: 'jane@outlook.de', facts: none, fires: [] },
  { name: 'national Outlook domain outside the popular list (free-provider says real)', email: 'jane@outlook.dk', facts: none, fires: [] },
  { name: 'national Yahoo domain outside the popular list', email: 'jane@yahoo.ie', facts: none, fires: [] },
  { name: 'rare free provider one edit from gmail.com', email: 'jane@xmail.com', facts: none, fires: [] },
  { name: 'rare free provider one edit from email.com', email: 'jane@3email.com', facts: none, fires: [] },
  { name: 'education domain', email: 'jane@mit.edu', facts: none, fires: [] },
  // Business domains close to provider names: not typos.
  { email: 'jane@example.com', facts: none, fires: [] },
  { name: 'a business name containing a provider name', email: 'jane@gmaill-consulting.com', facts: none, fires: [] },
  { email: 'jane@ibm.com', facts: none, fires: [] },
  { email: 'jane@box.com', facts: none, fires: [] },
  { email: 'jane@cnn.com', facts: none, fires: [] },
  { name: 'Hotmart is two letters from hotmail.com', email: 'jane@hotmart.com', facts: none, fires: [] },
  { name: 'company domain of a provider', email: 'jane@comcast.com', facts: none, fires: [] },
  { email: 'jane@verizon.com', facts: none, fires: [] },
  { email: 'jane@att.com', facts: none, fires: [] },
  { email: 'jane@orange.com', facts: none, fires: [] },
  { name: 'known name with another known suffix is left alone', email: 'jane@gmail.de', facts: none, fires: [] },
  { email: 'jane@web.com', facts: none, fires: [] },
  { name: 'vanity word domains are no targets', email: 'jane@europa.com', facts: none, fires: [] },
  { email: 'jane@horizon.net', facts: none, fires: [] },
  { email: 'jane@acme.co', facts: none, fires: [] },
  { name: 'mail.google.com is not a typo of gmail.com', email: 'jane@mail.google.com', facts: none, fires: [] },
  { name: 'a country gmail does not offer is not guessed', email: 'jane@gmial.fr', facts: none, fires: [] },
  // Short names (first label under 5): one keyboard slip, only when exactly one popular domain fits.
  { name: 'a missed key in a short name', email: 'jane@liv.com', facts: typoOf('jane@live.com'), fires: ['typo_detection'] },
  { name: 'a doubled key', email: 'jane@aoll.com', facts: typoOf('jane@aol.com'), fires: ['typo_detection'] },
  { name: 'a neighbouring key (m for n)', email: 'jane@msm.com', facts: typoOf('jane@msn.com'), fires: ['typo_detection'] },
  { name: 'two keys swapped', email: 'jane@mns.com', facts: typoOf('jane@msn.com'), fires: ['typo_detection'] },
  { email: 'jane@gnx.de', facts: typoOf('jane@gmx.de'), fires: ['typo_detection'] },
  { email: 'jane@gmxx.net', facts: typoOf('jane@gmx.net'), fires: ['typo_detection'] },
  { email: 'jane@wev.de', facts: typoOf('jane@web.de'), fires: ['typo_detection'] },
  { email: 'jane@wbe.de', facts: typoOf('jane@web.de'), fires: ['typo_detection'] },
  { email: 'jane@qqq.com', facts: typoOf('jane@qq.com'), fires: ['typo_detection'] },
  { email: 'jane@1633.com', facts: typoOf('jane@163.com'), fires: ['typo_detection'] },
  { email: 'jane@mial.ru', facts: typoOf('jane@mail.ru'), fires: ['typo_detection'] },
  { email: 'jane@maik.ru', facts: typoOf('jane@mail.ru'), fires: ['typo_detection'] },
  { name: 'a national domain keeps its suffix', email: 'jane@lve.co.uk', facts: typoOf('jane@live.co.uk'), fires: ['typo_detection'] },
  { name: 'Apple: m and a swapped', email: 'jane@amc.com', facts: typoOf('jane@mac.com'), fires: ['typo_detection'] },
  { name: 'ambiguous: 136 is one slip from both 163 and 126', email: 'jane@136.com', facts: none, fires: [] },
  { name: 'two-letter names are left alone (every two-letter .com is somebody’s)', email: 'jane@ao.com', facts: none, fires: [] },
  { name: 'mw.com: a two-letter name', email: 'jane@mw.com', facts: none, fires: [] },
  { name: 'g and m are not neighbours: aig.com is no slip of aim.com', email: 'jane@aig.com', facts: none, fires: [] },
  { name: 'a known free provider one slip from aol.com is real', email: 'jane@love.com', facts: none, fires: [] },
  { name: 'a known throwaway domain one slip from daum.net is not corrected', email: 'jane@duam.net', facts: none, fires: [] },
  { name: 'a known name with a suffix it does not use', email: 'jane@msn.de', facts: none, fires: [] },
  {
    name: 'a slip in a short name and a TLD that does not exist: the provider',
    email: 'jane@aoll.con',
    facts: typoOf('jane@aol.com'),
    fires: ['typo_detection'],
  },
  { name: 'two slips in a short name', email: 'jane@aolll.com', facts: none, fires: [] },
  { name: 'a changed name under another real TLD is somebody else’s domain (.cam exists)', email: 'jane@zmail.cam', facts: none, fires: [] },
  { name: 'a changed name under another real ccTLD (.cf exists)', email: 'jane@4mail.cf', facts: none, fires: [] },
  { name: 'IDN domain', email: 'jane@gmaïl.com', facts: none, fires: [] },
  // Top-level domains that are not delegated, one edit from a common suffix: the first labels stay as typed.
  { email: 'jane@acme.cmo', facts: { ...typoOf('jane@acme.com'), typo_edits: 1 }, fires: ['typo_detection'] },
  { email: 'jane@shop.con', facts: typoOf('jane@shop.com'), fires: ['typo_detection'] },
  { email: 'jane@acme.ogr', facts: typoOf('jane@acme.org'), fires: ['typo_detection'] },
  { email: 'jane@acme.nte', facts: typoOf('jane@acme.net'), fires: ['typo_detection'] },
  { email: 'jane@acme.co.ukk', facts: typoOf('jane@acme.co.uk'), fires: ['typo_detection'] },
  { email: 'jane@acme.couk', facts: typoOf('jane@acme.co.uk'), fires: ['typo_detection'] },
  { email: 'jane@mail.acme.cmo', facts: typoOf('jane@mail.acme.com'), fires: ['typo_detection'] },
  { name: 'IDN name kept in Unicode', email: 'jane@bücher.cmo', facts: typoOf('jane@bücher.com'), fires: ['typo_detection'] },
  { name: 'an ideographic full stop is a dot', email: 'jane@gmial。com', facts: typoOf('jane@gmail.com'), fires: ['typo_detection'] },
  { name: 'full stops mapped, IDN name kept in Unicode', email: 'jane@bücher．cmo', facts: typoOf('jane@bücher.com'), fires: ['typo_detection'] },
  {
    name: 'a provider typo with a TLD typo: the provider wins',
    email: 'jane@gmial.cmo',
    facts: { ...typoOf('jane@gmail.com'), typo_edits: 2 },
    fires: ['typo_detection'],
  },
  { name: 'upper case: local part as typed, domain lower case', email: 'JANE@ACME.CMO', facts: typoOf('JANE@acme.com'), fires: ['typo_detection'] },
  { email: 'jane@acme.cm', facts: none, fires: [] },
  { email: 'jane@acme.om', facts: none, fires: [] },
  { email: 'jane@acme.ne', facts: none, fires: [] },
  { name: 'special-use name', email: 'jane@foo.alt', facts: none, fires: [] },
  { name: 'not delegated, nothing close', email: 'jane@example.notatld', facts: none, fires: [] },
  // Surrounding spaces: invalid as typed, corrected without them.
  { name: 'spaces around', email: ' Jane@GMIAL.com ', facts: typoOf('Jane@gmail.com'), fires: ['typo_detection'] },
  { name: 'a leading space and a TLD typo', email: ' jane@acme.cmo', facts: typoOf('jane@acme.com'), fires: ['typo_detection'] },
  { name: 'spaces around a correct address', email: ' jane@gmail.com ', facts: none, fires: [] },
  { name: 'a leading space only: the free-provider guard still sees the domain', email: ' jane@3email.com', facts: none, fires: [] },
  { name: 'trailing spaces do not hide a rare free provider from its guard', email: ' jane@xmail.com ', facts: none, fires: [] },
  {
    name: 'known false positive: the guard knows the typed domain, not its fixed form (README)',
    email: 'jane@xmail.cmo',
    facts: typoOf('jane@gmail.com'),
    fires: ['typo_detection'],
  },
  { name: 'spaces around a quoted local part', email: ' "jane doe"@gmial.com ', facts: unknown, fires: [] },
  { name: 'spaces around a local part broken otherwise', email: ' jane..doe@gmial.com ', facts: unknown, fires: [] },
  { name: 'spaces around a domain broken otherwise', email: ' jane@gmial..com ', facts: unknown, fires: [] },
  // No valid domain: unknown.
  { name: 'invalid address', email: 'jane..doe@gmial.com', facts: unknown, fires: [] },
  { name: 'IPv4 literal', email: 'jane@[192.168.0.1]', facts: unknown, fires: [] },
  { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
  { name: 'empty domain', email: 'jane@', facts: unknown, fires: [] },
]);

describe('typo_detection check', () => {
  it('reports domain_typo_detected: an error in hard mode, a warning in soft mode (action allow)', async () => {
    expect(await decisionFor({ typo_detection: { mode: 'hard' } }, 'jane@gmial.com')).toMatchObject({
      action: 'block',
      errors: ['domain_typo_detected'],
      warnings: [],
    });
    expect(await decisionFor({ typo_detection: { mode: 'soft' } }, 'jane@gmial.com')).toMatchObject({
      action: 'allow',
      errors: [],
      warnings: ['domain_typo_detected'],
    });
  });
});

describe('SuffixCorrector', () => {
  const corrector = new SuffixCorrector(readCommonSuffixes());
  const corrected = (domain: string) => {
    const fix = corrector.correct(domain);
    return fix === null ? null : [...domain.split('.').slice(0, fix.kept), fix.suffix].join('.');
  };

  it('corrects a TLD that is not delegated to the nearest common suffix, the more used on a tie', () => {
    expect(corrected('acme.cmo')).toBe('acme.com');
    expect(corrected('acme.nt')).toBe('acme.net'); // also one edit from .nl, .no, .it, .at, .in
    expect(corrected('shop.co.uj')).toBe('shop.co.uk'); // co.uk before us
    expect(corrected('a.b.acme.c0m')).toBe('a.b.acme.com');
  });

  it('leaves delegated, special-use, too short, too far and suffix-only names alone', () => {
    for (const domain of ['acme.co', 'acme.cm', 'acme.om', 'acme.ne', 'acme.net', 'acme.con.au', 'acme.xn--p1ai']) expect(corrected(domain), domain).toBeNull();
    for (const domain of ['foo.alt', 'foo.test', 'foo.local', 'foo.onion', 'foo.internal']) expect(corrected(domain), domain).toBeNull();
    expect(corrected('acme.c')).toBeNull();
    expect(corrected('acme.cmoo')).toBeNull();
    expect(corrected('co.ukk')).toBeNull(); // co.uk would be a public suffix, no mailbox domain
    expect(corrected('acme')).toBeNull();
  });

  it('judges a TLD delegated exactly when the tld check does', async () => {
    const tldPolicy = checksPolicy({ tld: { mode: 'hard' } });
    for (const domain of [
      'acme.cmo',
      'acme.com',
      'acme.co',
      'acme.ck',
      'acme.xn--p1ai',
      'acme.alt',
      'acme.local',
      'acme.co.ukk',
      'acme.um',
      'acme.bv',
      'acme.zip',
    ]) {
      const hasValidTld = await (await evaluateFor(tldPolicy, { email: `jane@${domain}` })).fact('has_valid_tld');
      expect(isDelegatedTld(domain.slice(domain.lastIndexOf('.') + 1)), domain).toBe(hasValidTld);
    }
  });

  it('refuses a suffix list entry that is not an ICANN public suffix', () => {
    expect(() => new SuffixCorrector(['com', 'cmo'])).toThrow(/cmo/);
    expect(() => new SuffixCorrector(['github.io'])).toThrow(/github\.io/);
  });

  it('ships common suffixes only: each an ICANN public suffix, once', () => {
    const suffixes = readCommonSuffixes();
    expect(new Set(suffixes).size).toBe(suffixes.length);
    expect(suffixes.slice(0, 3)).toEqual(['com', 'net', 'org']);
  });
});

describe('reference suites (mailcheck, @zootools/email-spell-checker; reference-cases.json)', () => {
  interface Case {
    input: string;
    expected: string | null;
  }
  const suites: { name: string; cases: Case[] }[] = JSON.parse(readFileSync(new URL('./reference-cases.json', import.meta.url), 'utf8')).suites;
  const policy = checksPolicy({ typo_detection: { mode: 'soft' } });

  it('never suggests a wrong address, and misses or disagrees only where this plugin decides otherwise (README)', async () => {
    const disagreements: string[] = [];
    for (const { cases } of suites) {
      for (const { input, expected } of cases) {
        const got = await (await evaluateFor(policy, { email: input })).fact('corrected_email');
        if (got !== expected) disagreements.push(`${input} -> ${got} (expected ${expected})`);
      }
    }
    expect(disagreements).toEqual([
      'test@emaildomain.co -> null (expected test@emaildomain.com)', // .co is delegated; emaildomain is the suite's own domain
      'test@#gmail.com -> null (expected test@gmail.com)', // not an address
      'test@comcast.com -> null (expected test@comcast.net)', // a company domain
      'test@fabecook.com -> null (expected test@facebook.com)', // not a mailbox provider
      'test@mail.randomsmallcompany.cmo -> test@mail.randomsmallcompany.com (expected null)', // a limitation of mailcheck's splitting
      'person@gmail.co -> person@gmail.com (expected null)', // no provider serves mail at gmail.co
      'person@hotmail.co -> person@hotmail.com (expected null)',
      '<script>alert("x")</script>@gmial.com -> null (expected <script>alert("x")</script>@gmail.com)', // not an address
      'test@zopo.com -> null (expected test@zoho.com)', // four-letter names are never changed
    ]);
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
    expect(suggester.suggest('xmail.com')).toBe('gmail.com');
    expect(suggester.suggest('3email.com')).toBe('email.com');
  });

  it('leaves a provider name under another real country code of the same length alone: a national domain, not a slip', () => {
    for (const national of ['outlook.dk', 'yahoo.ie', 'hotmail.dk', 'hotmail.fi', 'hotmail.com.tr', 'gmx.pt', 'gmx.ie', 'outlook.ee']) {
      expect(suggester.suggest(national), national).toBeNull();
    }
    // Another length is a slip, even where the country code exists (.cm, .co, .om).
    for (const [typed, meant] of [
      ['gmail.cm', 'gmail.com'],
      ['gmail.co', 'gmail.com'],
      ['gmail.om', 'gmail.com'],
    ]) {
      expect(suggester.suggest(typed ?? '')).toBe(meant);
    }
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

  it('suggests nothing for a domain longer than every popular one by more than two edits, however it starts', () => {
    expect(suggester.suggest(`${'a'.repeat(240)}.com`)).toBeNull();
    expect(suggester.suggest(`gmail.co${'m'.repeat(240)}`)).toBeNull();
  });
});

describe('ShortNameCorrector', () => {
  const corrector = new ShortNameCorrector(readPopularDomains(), readKnownDomains());

  it('knows one keyboard slip: a neighbouring key, a missed key, a doubled or neighbouring extra key, a swap', () => {
    for (const [typed, meant] of [
      ['wen', 'web'],
      ['ao', 'aol'],
      ['aoll', 'aol'],
      ['aokl', 'aol'],
      ['mns', 'msn'],
      ['173', '163'],
    ]) {
      expect(isOneSlip(typed ?? '', meant ?? ''), `${typed} ${meant}`).toBe(true);
    }
    for (const [typed, meant] of [
      ['aig', 'aim'], // g and m are far apart
      ['aol', 'aol'],
      ['aoxl', 'aol'],
      ['lao', 'aol'],
      ['msnxx', 'msn'],
    ]) {
      expect(isOneSlip(typed ?? '', meant ?? ''), `${typed} ${meant}`).toBe(false);
    }
  });

  it('corrects only when exactly one popular domain fits, never a known mail domain, never a long name', () => {
    expect(corrector.correct('gnx.de')).toBe('gmx.de');
    expect(corrector.correct('136.com')).toBeNull(); // 163.com and 126.com
    expect(corrector.correct('love.com')).toBeNull(); // a known free provider
    expect(corrector.correct('gmial.com')).toBeNull(); // long names are the distance search's
    expect(corrector.correct('qq.com')).toBeNull();
    expect(corrector.correct('aol')).toBeNull();
  });

  it('ships the known domains sorted, unique and each one slip from a short popular name', () => {
    const known = readKnownDomains();
    expect(known).toEqual([...new Set(known)].sort());
    expect(known).toContain('love.com');
  });
});
