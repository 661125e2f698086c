import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { packageRoot } from '../../src/paths.js';
import { listedDomainSuite } from '../../test/support/listed-domain-suite.js';
import { decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import disposable from './index.js';

const no = { is_disposable_domain: false, disposable_match: null };
const unknown = { is_disposable_domain: null, disposable_match: null };
const listed = (match: string) => ({ is_disposable_domain: true, disposable_match: match });
const options = (o: { add?: string[]; exempt?: string[] }): Record<string, CheckOptions> => ({ disposable_domain: o });

testPlugin(disposable, [
  { email: 'a@mailinator.com', facts: listed('mailinator.com'), fires: ['disposable_domain'] },
  { name: 'subdomain of a listed domain', email: 'a@sub.mailinator.com', facts: listed('mailinator.com'), fires: ['disposable_domain'] },
  { name: 'deep subdomain of a listed domain', email: 'a@a.b.mailinator.com', facts: listed('mailinator.com'), fires: ['disposable_domain'] },
  { name: 'capitals (structure lower-cases)', email: 'A@Mailinator.COM', facts: listed('mailinator.com'), fires: ['disposable_domain'] },
  { email: 'a@yopmail.com', facts: listed('yopmail.com'), fires: ['disposable_domain'] },
  { email: 'a@guerrillamail.com', facts: listed('guerrillamail.com'), fires: ['disposable_domain'] },
  { email: 'a@10minutemail.com', facts: listed('10minutemail.com'), fires: ['disposable_domain'] },
  { name: 'quoted local part, listed domain', email: '"a b"@mailinator.com', facts: listed('mailinator.com'), fires: ['disposable_domain'] },
  { name: 'listed entry below a shared host', email: 'a@0-mailer.dynv6.net', facts: listed('0-mailer.dynv6.net'), fires: ['disposable_domain'] },
  { name: 'subdomain of an entry below a shared host', email: 'a@x.0-mailer.dynv6.net', facts: listed('0-mailer.dynv6.net'), fires: ['disposable_domain'] },
  { name: 'the shared host itself is not listed', email: 'a@dynv6.net', facts: no, fires: [] },
  // Subdomains under multi-label public suffixes and the Public Suffix List's private section (listed-domain.ts).
  { name: 'listed under co.uk', email: 'a@10minutemail.co.uk', facts: listed('10minutemail.co.uk'), fires: ['disposable_domain'] },
  { name: 'subdomain of a listed domain under co.uk', email: 'a@x.10minutemail.co.uk', facts: listed('10minutemail.co.uk'), fires: ['disposable_domain'] },
  { name: 'deep subdomain under co.za', email: 'a@a.b.10minutemail.co.za', facts: listed('10minutemail.co.za'), fires: ['disposable_domain'] },
  { name: 'subdomain of a listed domain under com.br', email: 'a@x.boxtemp.com.br', facts: listed('boxtemp.com.br'), fires: ['disposable_domain'] },
  { name: 'sibling under the same multi-label suffix', email: 'a@example.co.uk', facts: no, fires: [] },
  { name: 'listed host under the private suffix eu.org', email: 'a@66b1it.eu.org', facts: listed('66b1it.eu.org'), fires: ['disposable_domain'] },
  { name: 'subdomain of a listed host under eu.org', email: 'a@x.y.66b1it.eu.org', facts: listed('66b1it.eu.org'), fires: ['disposable_domain'] },
  { name: 'another host under eu.org is not listed', email: 'a@someone.eu.org', facts: no, fires: [] },
  // A listed private suffix covers its hosts: throwaway services hand out names below these dynv6 zones
  // (mailchecker 6.0.21 lists 211 such hosts, e.g. aa.throwaway.v6.army, cybertemp.dns.navy).
  { name: 'listed private suffix, the name itself', email: 'a@dns.army', facts: listed('dns.army'), fires: ['disposable_domain'] },
  { name: 'listed private suffix covers its hosts', email: 'a@cybertemp.dns.navy', facts: listed('dns.navy'), fires: ['disposable_domain'] },
  { name: 'listed private suffix v6.rocks, a deep host', email: 'a@aa.tempfree.v6.rocks', facts: listed('v6.rocks'), fires: ['disposable_domain'] },
  {
    name: 'a project exempts one host below a listed private suffix',
    email: 'a@alice.dns.army',
    options: options({ exempt: ['alice.dns.army'] }),
    facts: no,
    fires: [],
  },
  { name: 'IDN domain matched by its punycode form', email: 'a@dé.net', facts: listed('xn--d-bga.net'), fires: ['disposable_domain'] },
  { name: 'punycode written as such', email: 'a@xn--d-bga.net', facts: listed('xn--d-bga.net'), fires: ['disposable_domain'] },
  { name: 'listed name as a subdomain of an unlisted domain', email: 'a@mailinator.com.example.org', facts: no, fires: [] },
  { name: 'listed name as a label prefix', email: 'a@mailinator.community', facts: no, fires: [] },
  // Issue 16: the rule and guard of data/build.mjs (SOURCE.md, "The rule").
  {
    name: 'not on the reviewed list, on mailchecker and the ivolo family',
    email: 'a@abyssemail.com',
    facts: listed('abyssemail.com'),
    fires: ['disposable_domain'],
  },
  { name: 'on one family only, an old entry (ivolo and tompec): not counted', email: 'a@das-abitur-nachholen.net', facts: no, fires: [] },
  // Rule 3 (this issue): a fresh entry of tompec's list, on neither frozen list of its family, counts alone when registrable.
  { name: 'a fresh registrable entry of tompec alone: counted', email: 'a@zumaroll.com', facts: listed('zumaroll.com'), fires: ['disposable_domain'] },
  { name: "a fresh tompec entry that is a host below someone's domain: not counted", email: 'a@account.meta.com', facts: no, fires: [] },
  {
    name: 'a throwaway host under a dynamic-DNS zone, two families agree',
    email: 'a@tempmail.sytes.net',
    facts: listed('tempmail.sytes.net'),
    fires: ['disposable_domain'],
  },
  { name: 'the dynamic-DNS zone itself is not listed whole (private suffix)', email: 'a@shop.sytes.net', facts: no, fires: [] },
  { name: 'a shared-hosting zone two lists name is not listed whole', email: 'a@acme.za.com', facts: no, fires: [] },
  { name: 'portal mailbox: 21CN (China Telecom), on the reviewed list before', email: 'a@21cn.com', facts: no, fires: [] },
  { name: 'portal mailbox: Sify (India), on the reviewed list before', email: 'a@sify.com', facts: no, fires: [] },
  { name: 'portal mailbox: TOM (China), on two lists', email: 'a@vip.tom.com', facts: no, fires: [] },
  { name: "mail.com's vanity domain, on two lists", email: 'a@consultant.com', facts: no, fires: [] },
  { name: 'Hushmail, on two lists', email: 'a@hush.com', facts: no, fires: [] },
  { name: 'a university domain is never on the list', email: 'a@mit.edu', facts: no, fires: [] },
  {
    name: 'a project still adds a domain the lists miss',
    email: 'a@das-abitur-nachholen.net',
    options: options({ add: ['das-abitur-nachholen.net'] }),
    facts: listed('das-abitur-nachholen.net'),
    fires: ['disposable_domain'],
  },
  {
    name: 'a project still exempts a domain the rule added',
    email: 'a@abyssemail.com',
    options: options({ exempt: ['abyssemail.com'] }),
    facts: no,
    fires: [],
  },
  { name: 'privacy relay: DuckDuckGo', email: 'a@duck.com', facts: no, fires: [] },
  { name: 'privacy relay: SimpleLogin', email: 'a@simplelogin.com', facts: no, fires: [] },
  { name: 'privacy relay: SimpleLogin slmail.me', email: 'a@slmail.me', facts: no, fires: [] },
  { name: 'privacy relay: addy.io', email: 'a@anonaddy.me', facts: no, fires: [] },
  { name: 'privacy relay: Firefox Relay', email: 'a@mozmail.com', facts: no, fires: [] },
  { name: 'privacy relay: Hide My Email', email: 'a@privaterelay.appleid.com', facts: no, fires: [] },
  { name: 'privacy relay: Proton Pass', email: 'a@passmail.net', facts: no, fires: [] },
  { name: 'privacy relay: 33mail alias subdomain', email: 'a@me.33mail.com', facts: no, fires: [] },
  // Aliasing services (README.md "Aliasing services"): relays to a registered owner's inbox are never flagged;
  // forwarders the upstream list reviewed as throwaways (a use count or a lifetime, no lasting owner inbox) are.
  { name: 'privacy relay: Proton Pass passinbox.com', email: 'a@passinbox.com', facts: no, fires: [] },
  { name: 'privacy relay: Proton Pass passfwd.com', email: 'a@passfwd.com', facts: no, fires: [] },
  { name: 'privacy relay: addy.io shared domain', email: 'a@addymail.com', facts: no, fires: [] },
  { name: 'privacy relay: addy.io username subdomain', email: 'shop@alice.anonaddy.com', facts: no, fires: [] },
  { name: 'privacy relay: SimpleLogin aleeas.com', email: 'a@aleeas.com', facts: no, fires: [] },
  { name: 'privacy relay: Firefox Relay subdomain', email: 'a@relay.firefox.com', facts: no, fires: [] },
  { name: 'privacy relay: 33mail', email: 'a@33mail.com', facts: no, fires: [] },
  { name: 'privacy relay: spamgourmet (upstream allowlist)', email: 'word.3.alice@spamgourmet.com', facts: no, fires: [] },
  { name: 'privacy relay: spamgourmet antichef.net', email: 'word.3.alice@antichef.net', facts: no, fires: [] },
  { name: 'privacy relay: Sneakemail (upstream allowlist)', email: 'a@snkmail.com', facts: no, fires: [] },
  { name: 'privacy relay: erine.email', email: 'a@erine.email', facts: no, fires: [] },
  { name: 'Proton Mail short domain is a mailbox', email: 'a@pm.me', facts: no, fires: [] },
  { name: 'throwaway forwarder: TrashMail', email: 'a@trashmail.com', facts: listed('trashmail.com'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: TrashMail kurzepost.de', email: 'a@kurzepost.de', facts: listed('kurzepost.de'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: Jetable', email: 'a@jetable.org', facts: listed('jetable.org'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: Spamex', email: 'a@spamex.com', facts: listed('spamex.com'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: Blur masked email', email: 'a@opayq.com', facts: listed('opayq.com'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: MailNull', email: 'a@mailnull.com', facts: listed('mailnull.com'), fires: ['disposable_domain'] },
  { name: 'throwaway forwarder: wegwerfmail.de', email: 'a@wegwerfmail.de', facts: listed('wegwerfmail.de'), fires: ['disposable_domain'] },
  // Listed typo domains (typo-audit.mjs): one slip from a big provider, the typo check's business; two slips, a throwaway service.
  { name: 'listed one-slip typo of gmail.com stands aside', email: 'a@gmial.com', facts: listed('gmial.com'), fires: [] },
  { name: 'listed one-slip typo of hotmail.com stands aside', email: 'a@hotmial.com', facts: listed('hotmial.com'), fires: [] },
  { name: 'listed dropped letter of hotmail.com stands aside', email: 'a@hotmai.com', facts: listed('hotmai.com'), fires: [] },
  { name: 'listed neighbour key of hotmail.com stands aside', email: 'a@gotmail.com', facts: listed('gotmail.com'), fires: [] },
  { name: 'subdomain of a listed typo domain: no correction, blocked', email: 'a@x.gmial.com', facts: listed('gmial.com'), fires: ['disposable_domain'] },
  { name: 'listed two slips from email.cz is a throwaway', email: 'a@4mail.cf', facts: listed('4mail.cf'), fires: ['disposable_domain'] },
  { name: 'listed two slips from hotmail.ca is a throwaway', email: 'a@hot-mail.cf', facts: listed('hot-mail.cf'), fires: ['disposable_domain'] },
  { name: 'listed, near gmail.com but not corrected', email: 'a@amail.com', facts: listed('amail.com'), fires: ['disposable_domain'] },
  { email: 'a@gmail.com', facts: no, fires: [] },
  { email: 'a@googlemail.com', facts: no, fires: [] },
  { email: 'a@hotmail.co.uk', facts: no, fires: [] },
  { email: 'a@yahoo.co.jp', facts: no, fires: [] },
  { email: 'a@icloud.com', facts: no, fires: [] },
  { email: 'a@proton.me', facts: no, fires: [] },
  { email: 'a@gmx.de', facts: no, fires: [] },
  { email: 'a@example.com', facts: no, fires: [] },
  { email: 'a@mail.example.co.uk', facts: no, fires: [] },
  { name: 'domain is a public suffix: exact lookup only', email: 'a@co.uk', facts: no, fires: [] },
  { name: 'single label', email: 'a@localhost', facts: no, fires: [] },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', facts: unknown, fires: [] },
  { name: 'invalid address', email: 'a..b@mailinator.com', facts: unknown, fires: [] },
  { name: 'trailing root dot is not a valid address', email: 'a@mailinator.com.', facts: unknown, fires: [] },
  { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
  { email: '', facts: unknown, fires: [] },
  {
    name: 'project addition overrides the never list',
    email: 'a@duck.com',
    options: options({ add: ['duck.com'] }),
    facts: listed('duck.com'),
    fires: ['disposable_domain'],
  },
  {
    name: 'project exemption',
    email: 'a@mailinator.com',
    options: options({ exempt: ['mailinator.com'] }),
    facts: no,
    fires: [],
  },
  {
    name: 'project exemption covers subdomains',
    email: 'a@sub.mailinator.com',
    options: options({ exempt: ['mailinator.com'] }),
    facts: no,
    fires: [],
  },
  {
    name: 'exemption of a subdomain leaves the parent listed',
    email: 'a@mailinator.com',
    options: options({ exempt: ['sub.mailinator.com'] }),
    facts: listed('mailinator.com'),
    fires: ['disposable_domain'],
  },
  {
    name: 'project addition of 10,000 entries (the most allowed)',
    email: 'a@d9999.example',
    options: options({ add: Array.from({ length: 10_000 }, (_, i) => `d${i}.example`) }),
    facts: listed('d9999.example'),
    fires: ['disposable_domain'],
  },
]);

function dataFile(file: string): string[] {
  return readFileSync(join(packageRoot, 'plugins', 'disposable', 'data', file), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('disposable data', () => {
  const shipped = dataFile('domains.txt');
  const never = dataFile('never-disposable.txt');

  it('ships a large list of lower-case ASCII domains, sorted and without duplicates', () => {
    expect(shipped.length).toBeGreaterThan(40_000);
    expect(new Set(shipped).size).toBe(shipped.length);
    expect(shipped).toEqual([...shipped].sort());
    expect(shipped.filter((domain) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain))).toEqual([]);
  });

  it('contains no never-disposable domain nor a subdomain of one', () => {
    const neverSet = new Set(never);
    const parents = (domain: string) => domain.split('.').map((_, i, labels) => labels.slice(i).join('.'));
    expect(shipped.filter((domain) => parents(domain).some((name) => neverSet.has(name)))).toEqual([]);
  });

  it('holds no university domain nor a subdomain of one, and no free provider (the build guard, issue 16)', () => {
    const lines = (path: string) =>
      readFileSync(join(packageRoot, path), 'utf8')
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('#'));
    const universities = new Set(lines('plugins/education/data/domains.txt').map((l) => l.trim().toLowerCase()));
    const providers = JSON.parse(readFileSync(join(packageRoot, 'plugins/free-provider/data/providers.json'), 'utf8')) as Record<string, { domains: string[] }>;
    const free = new Set(Object.values(providers).flatMap((p) => p.domains));
    const parents = (domain: string) => domain.split('.').map((_, i, labels) => labels.slice(i).join('.'));
    expect(shipped.filter((domain) => parents(domain).some((name) => universities.has(name)))).toEqual([]);
    expect(shipped.filter((domain) => free.has(domain))).toEqual([]);
  });

  it('never-disposable list names the relays, big providers and national portals of the briefs', () => {
    for (const domain of [
      'duck.com',
      'simplelogin.com',
      'simplelogin.co',
      'simplelogin.fr',
      'slmail.me',
      'anonaddy.com',
      'anonaddy.me',
      'addy.io',
      'relay.firefox.com',
      'mozmail.com',
      'privaterelay.appleid.com',
      'passmail.net',
      'passmail.com',
      'passinbox.com',
      'passfwd.com',
      'addymail.com',
      '33mail.com',
      'spamgourmet.com',
      'sneakemail.com',
      'erine.email',
      'gmail.com',
      'googlemail.com',
      'outlook.com',
      'hotmail.com',
      'live.com',
      'yahoo.com',
      'icloud.com',
      'me.com',
      'mac.com',
      'aol.com',
      'proton.me',
      'protonmail.com',
      'gmx.net',
      'web.de',
      'mail.ru',
      'yandex.ru',
      'zoho.com',
      '21cn.com',
      '99.com',
      'tom.com',
      'sify.com',
      'hush.com',
      'yandex.net',
    ]) {
      expect(never).toContain(domain);
    }
    expect(new Set(never).size).toBe(never.length);
  });
});

describe('disposable_domain check', () => {
  const decide = (email: string, checkOptions?: Record<string, unknown>) =>
    decisionFor({ disposable_domain: { mode: 'hard', action: 'block', ...(checkOptions ? { options: checkOptions } : {}) } }, email);

  it('takes its action on a shipped entry, naming domain_is_disposable, with no warning', async () => {
    expect(await decide('a@mailinator.com')).toMatchObject({ action: 'block', errors: ['domain_is_disposable'], warnings: [] });
    expect(await decide('a@gmail.com')).toMatchObject({ action: 'allow', errors: [], warnings: [] });
  });

  // Beyond the refusals every list plugin shares (listedDomainSuite).
  it.each<[string, Record<string, unknown>]>([
    ['a domain with a space', { exempt: ['exa mple.com'] }],
    ['a leading dot', { add: ['.example.com'] }],
    ['an empty entry', { add: [''] }],
    ['a string instead of a list', { add: 'example.com' }],
  ])('refuses options with %s', async (_what, checkOptions) => {
    await expect(decide('a@example.com', checkOptions)).rejects.toThrow(/disposable_domain/);
  });
});

// The project's additions and exemptions, by policy options and by project lists, and the check's options:
// what every list plugin shares.
listedDomainSuite({ plugin: disposable, check: 'disposable_domain', flag: 'is_disposable_domain', match: 'disposable_match', shipsEmpty: false });
