import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import disposable from '../../plugins/disposable/index.js';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { packageRoot } from '../../src/paths.js';
import { decisionFor, testPlugin } from '../support/plugin-tester.js';

const no = { is_disposable_domain: false, disposable_match: null };
const unknown = { is_disposable_domain: null, disposable_match: null };
const listed = (match: string) => ({ is_disposable_domain: true, disposable_match: match });
const options = (o: { add?: string[]; exempt?: string[] }): Record<string, CheckOptions> => ({ disposable_domain: o });

testPlugin(disposable, [
  { email: 'a@mailinator.com', facts: listed('mailinator.com') },
  { name: 'subdomain of a listed domain', email: 'a@sub.mailinator.com', facts: listed('mailinator.com') },
  { name: 'deep subdomain of a listed domain', email: 'a@a.b.mailinator.com', facts: listed('mailinator.com') },
  { name: 'capitals (structure lower-cases)', email: 'A@Mailinator.COM', facts: listed('mailinator.com') },
  { email: 'a@yopmail.com', facts: listed('yopmail.com') },
  { email: 'a@guerrillamail.com', facts: listed('guerrillamail.com') },
  { email: 'a@10minutemail.com', facts: listed('10minutemail.com') },
  { name: 'quoted local part, listed domain', email: '"a b"@mailinator.com', facts: listed('mailinator.com') },
  { name: 'listed entry below a shared host', email: 'a@0-mailer.dynv6.net', facts: listed('0-mailer.dynv6.net') },
  { name: 'subdomain of an entry below a shared host', email: 'a@x.0-mailer.dynv6.net', facts: listed('0-mailer.dynv6.net') },
  { name: 'the shared host itself is not listed', email: 'a@dynv6.net', facts: no },
  { name: 'IDN domain matched by its punycode form', email: 'a@dé.net', facts: listed('xn--d-bga.net') },
  { name: 'punycode written as such', email: 'a@xn--d-bga.net', facts: listed('xn--d-bga.net') },
  { name: 'listed name as a subdomain of an unlisted domain', email: 'a@mailinator.com.example.org', facts: no },
  { name: 'listed name as a label prefix', email: 'a@mailinator.community', facts: no },
  { name: 'privacy relay: DuckDuckGo', email: 'a@duck.com', facts: no },
  { name: 'privacy relay: SimpleLogin', email: 'a@simplelogin.com', facts: no },
  { name: 'privacy relay: SimpleLogin slmail.me', email: 'a@slmail.me', facts: no },
  { name: 'privacy relay: addy.io', email: 'a@anonaddy.me', facts: no },
  { name: 'privacy relay: Firefox Relay', email: 'a@mozmail.com', facts: no },
  { name: 'privacy relay: Hide My Email', email: 'a@privaterelay.appleid.com', facts: no },
  { name: 'privacy relay: Proton Pass', email: 'a@passmail.net', facts: no },
  { name: 'privacy relay: 33mail alias subdomain', email: 'a@me.33mail.com', facts: no },
  { email: 'a@gmail.com', facts: no },
  { email: 'a@googlemail.com', facts: no },
  { email: 'a@hotmail.co.uk', facts: no },
  { email: 'a@yahoo.co.jp', facts: no },
  { email: 'a@icloud.com', facts: no },
  { email: 'a@proton.me', facts: no },
  { email: 'a@gmx.de', facts: no },
  { email: 'a@example.com', facts: no },
  { email: 'a@mail.example.co.uk', facts: no },
  { name: 'domain is a public suffix: exact lookup only', email: 'a@co.uk', facts: no },
  { name: 'single label', email: 'a@localhost', facts: no },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', facts: unknown },
  { name: 'invalid address', email: 'a..b@mailinator.com', facts: unknown },
  { name: 'trailing root dot is not a valid address', email: 'a@mailinator.com.', facts: unknown },
  { name: 'no @', email: 'plainaddress', facts: unknown },
  { email: '', facts: unknown },
  {
    name: 'project addition',
    email: 'a@throwaway.example',
    options: options({ add: ['throwaway.example'] }),
    facts: listed('throwaway.example'),
  },
  {
    name: 'project addition covers subdomains',
    email: 'a@x.throwaway.example',
    options: options({ add: ['throwaway.example'] }),
    facts: listed('throwaway.example'),
  },
  { name: 'without the addition', email: 'a@throwaway.example', facts: no },
  {
    name: 'project addition overrides the never list',
    email: 'a@duck.com',
    options: options({ add: ['duck.com'] }),
    facts: listed('duck.com'),
  },
  {
    name: 'project addition as punycode matches the IDN',
    email: 'a@bücher.example',
    options: options({ add: ['xn--bcher-kva.example'] }),
    facts: listed('xn--bcher-kva.example'),
  },
  {
    name: 'project exemption',
    email: 'a@mailinator.com',
    options: options({ exempt: ['mailinator.com'] }),
    facts: no,
  },
  {
    name: 'project exemption covers subdomains',
    email: 'a@sub.mailinator.com',
    options: options({ exempt: ['mailinator.com'] }),
    facts: no,
  },
  {
    name: 'exemption of a subdomain leaves the parent listed',
    email: 'a@mailinator.com',
    options: options({ exempt: ['sub.mailinator.com'] }),
    facts: listed('mailinator.com'),
  },
  {
    name: 'exemption wins when a domain is both added and exempt',
    email: 'a@throwaway.example',
    options: options({ add: ['throwaway.example'], exempt: ['throwaway.example'] }),
    facts: no,
  },
  {
    name: 'a more specific addition wins over an exempt parent',
    email: 'a@temp.mycompany.example',
    options: options({ add: ['temp.mycompany.example'], exempt: ['mycompany.example'] }),
    facts: listed('temp.mycompany.example'),
  },
  {
    name: 'a more specific exemption wins over an added parent',
    email: 'a@good.sketchy.example',
    options: options({ add: ['sketchy.example'], exempt: ['good.sketchy.example'] }),
    facts: no,
  },
  {
    name: 'options do not matter for an invalid address',
    email: 'a..b@throwaway.example',
    options: options({ add: ['throwaway.example'] }),
    facts: unknown,
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
    expect(shipped.length).toBeGreaterThan(5000);
    expect(new Set(shipped).size).toBe(shipped.length);
    expect(shipped).toEqual([...shipped].sort());
    expect(shipped.filter((domain) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain))).toEqual([]);
  });

  it('contains no never-disposable domain nor a subdomain of one', () => {
    const neverSet = new Set(never);
    const parents = (domain: string) => domain.split('.').map((_, i, labels) => labels.slice(i).join('.'));
    expect(shipped.filter((domain) => parents(domain).some((name) => neverSet.has(name)))).toEqual([]);
  });

  it('never-disposable list names the relays and big providers of the brief', () => {
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
      '33mail.com',
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
    ]) {
      expect(never).toContain(domain);
    }
    expect(new Set(never).size).toBe(never.length);
  });
});

async function actionFor(email: string, checkOptions?: Record<string, unknown>): Promise<string> {
  const decision = await decisionFor({ disposable_domain: { mode: 'hard', action: 'block', ...(checkOptions ? { options: checkOptions } : {}) } }, email);
  expect(decision.errors).toEqual([]);
  return decision.action;
}

describe('disposable_domain check', () => {
  it.each<[string, Record<string, unknown> | undefined, string]>([
    ['a@mailinator.com', undefined, 'block'],
    ['a@sub.mailinator.com', undefined, 'block'],
    ['a@duck.com', undefined, 'allow'],
    ['a@gmail.com', undefined, 'allow'],
    ['a@example.com', undefined, 'allow'],
    ['plainaddress', undefined, 'allow'],
    ['a@example.com', { add: ['example.com'] }, 'block'],
    ['a@mailinator.com', { exempt: ['mailinator.com'] }, 'allow'],
  ])('%s with %j → %s', async (email, checkOptions, action) => {
    expect(await actionFor(email, checkOptions)).toBe(action);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an upper-case domain', { add: ['Example.com'] }],
    ['a domain with a space', { exempt: ['exa mple.com'] }],
    ['a leading dot', { add: ['.example.com'] }],
    ['an empty entry', { add: [''] }],
    ['a 254-character domain', { add: [`${'a'.repeat(250)}.com`] }],
    ['more than 10,000 entries', { add: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) }],
    ['an unknown option', { block: ['example.com'] }],
    ['a string instead of a list', { add: 'example.com' }],
  ])('refuses options with %s', async (_what, checkOptions) => {
    await expect(actionFor('a@example.com', checkOptions)).rejects.toThrow(/disposable_domain/);
  });

  it('accepts 10,000 entries', async () => {
    const add = Array.from({ length: 10_000 }, (_, i) => `d${i}.example`);
    expect(await actionFor('a@d9999.example', { add })).toBe('block');
  });
});
