import { expect, it } from 'vitest';
import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';

function form(
  email: string,
  is_ipv4: boolean,
  is_ipv6: boolean,
  is_single_label: boolean,
  is_only_numeric: boolean,
  fires: string[],
  name?: string,
): PluginCase {
  return { name: name ?? email, email, facts: { is_ipv4, is_ipv6, is_single_label, is_only_numeric }, fires };
}

const cases: PluginCase[] = [
  form('john@example.com', false, false, false, false, []),
  form('john@mail.example.co.uk', false, false, false, false, []),
  form('john@[192.168.0.1]', true, false, false, false, ['domain_ipv4'], 'IPv4 literal'),
  form('john@[IPv6:2001:db8::1]', false, true, false, false, ['domain_ipv6'], 'IPv6 literal'),
  form('john@[IPv6:::ffff:192.0.2.1]', false, true, false, false, ['domain_ipv6'], 'IPv4-mapped IPv6 literal'),
  form('john@[999.1.1.1]', false, false, false, false, [], 'invalid IPv4 literal: none'),
  form('john@[1.2.3.4', false, false, false, false, [], 'unclosed literal: none'),
  form('john@192.168.0.1', true, false, false, true, ['domain_ipv4', 'domain_numeric_only'], 'bare IPv4 address (invalid syntax aside, still an IP)'),
  form('john@2001:db8::1', false, true, false, false, ['domain_ipv6'], 'bare IPv6 address'),
  form('john@fe80::1%eth0', false, false, true, false, ['domain_single_label'], 'zone id: not an address'),
  form('john@localhost', false, false, true, false, ['domain_single_label'], 'single label'),
  form('john@例子', false, false, true, false, ['domain_single_label'], 'single Unicode label'),
  form('john@123', false, false, true, true, ['domain_numeric_only', 'domain_single_label'], 'single numeric label'),
  form('john@123.456', false, false, false, true, ['domain_numeric_only'], 'numeric labels'),
  form('john@999.999.999.999', false, false, false, true, ['domain_numeric_only'], 'not an IPv4, still numeric'),
  form('john@123.com', false, false, false, false, [], 'one numeric label is not enough'),
  form('john@1.2.3.4.', false, false, false, false, [], 'trailing dot: empty label'),
  form('john@', false, false, false, false, [], 'empty domain'),
  form('john@localhost.', false, false, false, false, [], 'trailing dot: two labels'),
  {
    name: 'no @: unknown',
    email: 'localhost',
    facts: { is_ipv4: null, is_ipv6: null, is_single_label: null, is_only_numeric: null },
    fires: [],
  },
];

testPlugin(plugin, cases);

it('domain-form: its steps are its checks (it has no signal steps)', () => {
  expect([...plugin.steps].sort()).toEqual(Object.keys(plugin.checks).sort());
});
