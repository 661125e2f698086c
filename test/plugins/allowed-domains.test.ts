import { describe, expect, it } from 'vitest';
import allowedDomains from '../../plugins/allowed-domains/index.js';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { firedCodes, testPlugin } from '../support/plugin-tester.js';

const list = { specific_domains: { domains: ['example.com', 'corp.example.org', 'xn--bcher-kva.de'] } };
const exactOnly = { specific_domains: { domains: ['example.com'], include_subdomains: false } };
const allowed = { in_specific_domains: true };
const notAllowed = { in_specific_domains: false };
const unknown = { in_specific_domains: null };

testPlugin(allowedDomains, [
  { email: 'a@example.com', options: list, facts: allowed },
  { name: 'capitals in the address', email: 'A@EXAMPLE.COM', options: list, facts: allowed },
  { name: 'subdomain of a listed domain (default include_subdomains)', email: 'a@mail.example.com', options: list, facts: allowed },
  { name: 'deep subdomain', email: 'a@a.b.mail.example.com', options: list, facts: allowed },
  { name: 'listed subdomain', email: 'a@corp.example.org', options: list, facts: allowed },
  { name: 'under a listed subdomain', email: 'a@eu.corp.example.org', options: list, facts: allowed },
  { name: 'trailing root dot', email: 'a@example.com.', options: list, facts: allowed },
  { name: 'IDN domain listed in punycode', email: 'a@bücher.de', options: list, facts: allowed },
  { name: 'the parent of a listed subdomain is not listed', email: 'a@example.org', options: list, facts: notAllowed },
  { name: 'a sibling of a listed subdomain', email: 'a@other.example.org', options: list, facts: notAllowed },
  { name: 'suffix look-alike', email: 'a@notexample.com', options: list, facts: notAllowed },
  { name: 'listed domain as a label of another domain', email: 'a@example.com.evil.net', options: list, facts: notAllowed },
  { email: 'a@gmail.com', options: list, facts: notAllowed },
  { name: 'address literal is not a listed domain', email: 'a@[192.168.0.1]', options: list, facts: notAllowed },
  { name: 'include_subdomains false: exact domain', email: 'a@example.com', options: exactOnly, facts: allowed },
  { name: 'include_subdomains false: subdomain refused', email: 'a@mail.example.com', options: exactOnly, facts: notAllowed },
  { name: 'no @: unknown', email: 'plainaddress', options: list, facts: unknown },
  { name: 'empty domain: unknown', email: 'a@', options: list, facts: unknown },
  { name: 'no list configured: unknown', email: 'a@example.com', facts: unknown },
]);

describe('specific_domains check', () => {
  it.each<[string, Record<string, CheckOptions>, string[]]>([
    ['a@example.com', list, []],
    ['a@mail.example.com', list, []],
    ['a@gmail.com', list, ['not_in_specific_domains']],
    ['a@mail.example.com', exactOnly, ['not_in_specific_domains']],
    ['a@[192.168.0.1]', list, ['not_in_specific_domains']],
    ['plainaddress', list, []],
  ])('%s with %j fires %j', async (email, options, codes) => {
    expect(await firedCodes(allowedDomains, email, options)).toEqual(codes);
  });

  it.each<[string, CheckOptions]>([
    ['without domains', {}],
    ['with an empty list', { domains: [] }],
    ['with an upper-case domain', { domains: ['Example.com'] }],
    ['with a trailing dot', { domains: ['example.com.'] }],
    ['with an unknown option', { domains: ['example.com'], subdomains: true }],
    ['with more than 10,000 domains', { domains: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) }],
  ])('refuses a policy %s', async (_label, options) => {
    await expect(firedCodes(allowedDomains, 'a@example.com', { specific_domains: options })).rejects.toThrow(/checks\/specific_domains\/options/);
  });

  it('accepts 10,000 domains', async () => {
    const domains = Array.from({ length: 10_000 }, (_, i) => `d${i}.example`);
    expect(await firedCodes(allowedDomains, 'a@d9999.example', { specific_domains: { domains } })).toEqual([]);
  });
});
