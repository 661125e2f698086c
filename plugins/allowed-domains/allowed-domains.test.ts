import { describe, expect, it } from 'vitest';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { decisionFor, testPlugin } from '../../test/support/plugin-tester.js';
import allowedDomains from './index.js';

const list = { specific_domains: { domains: ['example.com', 'corp.example.org', 'xn--bcher-kva.de'] } };
const exactOnly = { specific_domains: { domains: ['example.com'], include_subdomains: false } };
const allowed = { in_specific_domains: true };
const notAllowed = { in_specific_domains: false };
const unknown = { in_specific_domains: null };

testPlugin(allowedDomains, [
  { email: 'a@example.com', options: list, facts: allowed, fires: [] },
  { name: 'capitals in the address', email: 'A@EXAMPLE.COM', options: list, facts: allowed, fires: [] },
  { name: 'subdomain of a listed domain (default include_subdomains)', email: 'a@mail.example.com', options: list, facts: allowed, fires: [] },
  { name: 'deep subdomain', email: 'a@a.b.mail.example.com', options: list, facts: allowed, fires: [] },
  { name: 'listed subdomain', email: 'a@corp.example.org', options: list, facts: allowed, fires: [] },
  { name: 'under a listed subdomain', email: 'a@eu.corp.example.org', options: list, facts: allowed, fires: [] },
  { name: 'trailing root dot', email: 'a@example.com.', options: list, facts: allowed, fires: [] },
  { name: 'IDN domain listed in punycode', email: 'a@bücher.de', options: list, facts: allowed, fires: [] },
  { name: 'the parent of a listed subdomain is not listed', email: 'a@example.org', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'a sibling of a listed subdomain', email: 'a@other.example.org', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'suffix look-alike', email: 'a@notexample.com', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'listed domain as a label of another domain', email: 'a@example.com.evil.net', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { email: 'a@gmail.com', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'address literal is not a listed domain', email: 'a@[192.168.0.1]', options: list, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'include_subdomains false: exact domain', email: 'a@example.com', options: exactOnly, facts: allowed, fires: [] },
  { name: 'include_subdomains false: subdomain refused', email: 'a@mail.example.com', options: exactOnly, facts: notAllowed, fires: ['specific_domains'] },
  { name: 'no @: unknown', email: 'plainaddress', options: list, facts: unknown, fires: [] },
  { name: 'empty domain: unknown', email: 'a@', options: list, facts: unknown, fires: [] },
  {
    name: 'a list of 10,000 domains (the most allowed)',
    email: 'a@d9999.example',
    options: { specific_domains: { domains: Array.from({ length: 10_000 }, (_, i) => `d${i}.example`) } },
    facts: allowed,
    fires: [],
  },
  { name: 'no list configured: unknown, and the check cannot be enabled', email: 'a@example.com', facts: unknown, fires: [] },
]);

describe('specific_domains check', () => {
  it('reports its code when it fires', async () => {
    const decision = await decisionFor({ specific_domains: { mode: 'hard', options: list.specific_domains } }, 'a@gmail.com');
    expect(decision.fired.map((v) => v.name)).toEqual(['specific_domains']);
    expect(decision).toMatchObject({ action: 'block', errors: ['not_in_specific_domains'] });
  });

  it.each<[string, CheckOptions]>([
    ['without domains', {}],
    ['with an empty list', { domains: [] }],
    ['with an upper-case domain', { domains: ['Example.com'] }],
    ['with a trailing dot', { domains: ['example.com.'] }],
    ['with an unknown option', { domains: ['example.com'], subdomains: true }],
    ['with more than 10,000 domains', { domains: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) }],
  ])('refuses a policy %s', async (_label, options) => {
    await expect(decisionFor({ specific_domains: { mode: 'hard', options } }, 'a@example.com')).rejects.toThrow(/checks\/specific_domains\/options/);
  });
});
