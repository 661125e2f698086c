import { expect, it } from 'vitest';
import { type PluginCase, testPlugin } from '../../test/support/plugin-tester.js';
import plugin from './index.js';

const a = (n: number) => 'a'.repeat(n);
/** A domain of exactly `n` characters: labels of 63 joined by dots, ending in a shorter label. */
function domainOf(n: number): string {
  const labels: string[] = [];
  let left = n;
  while (left > 64) {
    labels.push('b'.repeat(63));
    left -= 64;
  }
  labels.push('c'.repeat(left));
  return labels.join('.');
}

const cases: PluginCase[] = [
  {
    email: 'john@example.com',
    facts: { local_part_length: 4, domain_length: 11, total_length: 16, longest_label_length: 7 },
    fires: [],
  },
  // local part: 64 octets
  { name: 'local part of 64', email: `${a(64)}@x.com`, facts: { local_part_length: 64, total_length: 70 }, fires: [] },
  { name: 'local part of 65', email: `${a(65)}@x.com`, facts: { local_part_length: 65, total_length: 71 }, fires: ['local_part_max_length'] },
  { name: 'local part of 65, only that limit passed', email: `${a(65)}@example.com`, facts: { local_part_length: 65 }, fires: ['local_part_max_length'] },
  {
    name: 'multi-byte local part: 32 × "é" is 64 octets',
    email: `${'é'.repeat(32)}@x.com`,
    facts: { local_part_length: 64 },
    fires: [],
  },
  {
    name: 'multi-byte local part: 33 × "é" is 66 octets',
    email: `${'é'.repeat(33)}@x.com`,
    facts: { local_part_length: 66 },
    fires: ['local_part_max_length'],
  },
  { name: 'four-byte characters: 16 emoji', email: `${'😀'.repeat(16)}@x.com`, facts: { local_part_length: 64 }, fires: [] },
  { name: 'quotes count', email: '"john doe"@x.com', facts: { local_part_length: 10 }, fires: [] },
  // domain: 253 characters
  {
    name: 'domain of 253',
    email: `x@${domainOf(253)}`,
    facts: { domain_length: 253, longest_label_length: 63, total_length: 255 },
    fires: ['total_address_length'],
  },
  { name: 'domain of 254', email: `x@${domainOf(254)}`, facts: { domain_length: 254 }, fires: ['domain_max_length', 'total_address_length'] },
  {
    name: 'domain of 255: four labels of 63',
    email: `x@${['a', 'b', 'c', 'd'].map((c) => c.repeat(63)).join('.')}`,
    facts: { domain_length: 255 },
    fires: ['domain_max_length', 'total_address_length'],
  },
  // label: 63 octets
  { name: 'label of 63', email: `x@${a(63)}.com`, facts: { longest_label_length: 63, domain_length: 67 }, fires: [] },
  { name: 'label of 64', email: `x@${a(64)}.com`, facts: { longest_label_length: 64, domain_length: 68 }, fires: ['label_max_length'] },
  // whole address: 254 octets
  {
    name: 'address of 254',
    email: `${a(64)}@${domainOf(189)}`,
    facts: { local_part_length: 64, domain_length: 189, total_length: 254 },
    fires: [],
  },
  {
    name: 'address of 255',
    email: `${a(64)}@${domainOf(190)}`,
    facts: { local_part_length: 64, domain_length: 190, total_length: 255 },
    fires: ['total_address_length'],
  },
  {
    name: 'address of 255, its parts within their limits',
    email: `${a(64)}@${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(62)}.com`,
    facts: { total_length: 255, local_part_length: 64, domain_length: 190 },
    fires: ['total_address_length'],
  },
  // internationalised domains count in ASCII (punycode) form
  {
    name: 'IDN domain counted in punycode: münchen.de → xn--mnchen-3ya.de',
    email: 'x@münchen.de',
    facts: { domain_length: 17, longest_label_length: 14, total_length: 19 },
    fires: [],
  },
  {
    name: 'IDN label: ü + 55 a is 63 in punycode (as node:url domainToASCII says)',
    email: `x@ü${a(55)}.com`,
    facts: { longest_label_length: 63 },
    fires: [],
  },
  {
    name: 'IDN label: ü + 56 a is 64 in punycode',
    email: `x@ü${a(56)}.com`,
    facts: { longest_label_length: 64 },
    fires: ['label_max_length'],
  },
  {
    name: 'short Unicode label long in punycode: 40 CJK characters are 46 ASCII (as node:url domainToASCII says)',
    email: `x@${'例'.repeat(40)}.com`,
    facts: { longest_label_length: 46, domain_length: 50 },
    fires: [],
  },
  {
    name: 'unconvertible label (unassigned U+0378) falls back to UTF-8 octets',
    email: 'x@ab\u0378cd.com',
    facts: { longest_label_length: 6, domain_length: 10 },
    fires: [],
  },
  { name: 'address literal: no labels', email: 'x@[192.168.0.1]', facts: { domain_length: 13, longest_label_length: null }, fires: [] },
  // invalid addresses are measured as long as the parts exist
  { name: 'invalid but measurable', email: 'a..b@example.com', facts: { local_part_length: 4, domain_length: 11 }, fires: [] },
  { name: 'empty domain', email: 'john@', facts: { local_part_length: 4, domain_length: 0, total_length: 5, longest_label_length: 0 }, fires: [] },
  {
    name: 'no @: unknown',
    email: 'john.example.com',
    facts: { local_part_length: null, domain_length: null, total_length: null, longest_label_length: null },
    fires: [],
  },
  {
    name: 'very long non-ASCII label stays cheap (raw octets)',
    email: `x@${'例'.repeat(10_000)}.com`,
    facts: { longest_label_length: 30_000, domain_length: 30_004 },
    fires: ['domain_max_length', 'label_max_length', 'total_address_length'],
  },
];

testPlugin(plugin, cases);

it('length: its steps are its checks (it has no signal steps)', () => {
  expect([...plugin.steps].sort()).toEqual(Object.keys(plugin.checks).sort());
});
