import { describe, expect, it } from 'vitest';
import { FactCatalog } from '../../src/engine/catalog.js';
import { loadPolicy } from '../../src/policy/load.js';
import { evaluateFor, testPlugin } from '../../test/support/plugin-tester.js';
import { registry } from '../index.js';
import requestIp from './index.js';

testPlugin(requestIp, [
  { name: 'IPv4 only', email: 'jane@example.com', ipv4: '203.0.113.7', facts: { ipv4_address: '203.0.113.7', ipv6_address: null } },
  { name: 'IPv6 only', email: 'jane@example.com', ipv6: '2001:db8::1', facts: { ipv4_address: null, ipv6_address: '2001:db8::1' } },
  { name: 'no IP', email: 'jane@example.com', facts: { ipv4_address: null, ipv6_address: null } },
]);

describe('the caller IP in a free rule with inNetworks', () => {
  const text = JSON.stringify({
    version: '1',
    rules: [
      {
        name: 'office',
        action: 'allow_with_review',
        warning: 'office_network',
        conditions: {
          any: [
            { fact: 'ipv4_address', operator: 'inNetworks', value: ['203.0.113.0/24', '198.51.100.7'] },
            { fact: 'ipv6_address', operator: 'inNetworks', value: ['2001:db8:1::/48'] },
          ],
        },
      },
    ],
  });
  const policy = loadPolicy({ name: 'office', file: 'office.json', text }, new FactCatalog(registry));
  const actionOf = async (input: { ipv4?: string; ipv6?: string }) => (await evaluateFor(policy, { email: 'jane@example.com', ...input })).decision.action;

  it('holds for an address in a listed network or a listed address, in either family', async () => {
    expect(await actionOf({ ipv4: '203.0.113.250' })).toBe('allow_with_review');
    expect(await actionOf({ ipv4: '198.51.100.7' })).toBe('allow_with_review');
    expect(await actionOf({ ipv6: '2001:db8:1:ffff::1' })).toBe('allow_with_review');
    // An IPv4-mapped IPv6 address is looked up as its IPv4 address, which this IPv6 list does not hold.
    expect(await actionOf({ ipv6: '::ffff:203.0.113.9' })).toBe('allow');
  });

  it('does not hold outside them, nor without an IP', async () => {
    expect(await actionOf({ ipv4: '203.0.114.1' })).toBe('allow');
    expect(await actionOf({ ipv4: '198.51.100.8' })).toBe('allow');
    expect(await actionOf({ ipv6: '2001:db8:2::1' })).toBe('allow');
    expect(await actionOf({})).toBe('allow');
  });

  it('refuses a list entry that is not an address or a network, at its place', () => {
    const bad = JSON.stringify({
      version: '1',
      rules: [{ name: 'r', action: 'allow', conditions: { fact: 'ipv4_address', operator: 'inNetworks', value: ['203.0.113.0/33'] } }],
    });
    expect(() => loadPolicy({ name: 'bad', file: 'bad.json', text: bad }, new FactCatalog(registry))).toThrow(
      /\/rules\/0\/conditions\/value: "203\.0\.113\.0\/33" is not an IP address or a network such as 203\.0\.113\.0\/24/,
    );
  });
});
