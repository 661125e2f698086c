import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import roleBased from '../../plugins/role-based/index.js';
import { firedCodes, testPlugin } from '../support/plugin-tester.js';

const role = (name: string) => ({ is_role_based_domain: true, role_name: name });
const person = { is_role_based_domain: false, role_name: null };

testPlugin(roleBased, [
  { email: 'noreply@example.com', facts: role('noreply') },
  { email: 'no-reply@example.com', facts: role('noreply') },
  { email: 'no_reply@example.com', facts: role('noreply') },
  { name: 'capitals, dot and plus tag', email: 'No.Reply+x@example.com', facts: role('noreply') },
  { email: 'do-not-reply@example.com', facts: role('donotreply') },
  { email: 'info@example.com', facts: role('info') },
  { email: 'INFO@example.com', facts: role('info') },
  { email: 'support@example.com', facts: role('support') },
  { email: 'admin@example.com', facts: role('admin') },
  { email: 'postmaster@example.com', facts: role('postmaster') },
  { email: 'abuse@example.com', facts: role('abuse') },
  { email: 'sales@example.com', facts: role('sales') },
  { email: 'webmaster@example.com', facts: role('webmaster') },
  { name: 'hello is a shared inbox', email: 'hello@example.com', facts: role('hello') },
  { name: 'RFC 2142: hostmaster', email: 'hostmaster@example.com', facts: role('hostmaster') },
  { name: 'RFC 2142: noc', email: 'noc@example.com', facts: role('noc') },
  { name: 'RFC 2142: uucp', email: 'uucp@example.com', facts: role('uucp') },
  { email: 'mailer-daemon@example.com', facts: role('mailerdaemon') },
  { name: 'plus tag on a role', email: 'support+tickets@example.com', facts: role('support') },
  { name: 'separators inside a role', email: 'customer.service@example.com', facts: role('customerservice') },
  { email: 'sales-team@example.com', facts: role('salesteam') },
  { name: 'kept two-letter role', email: 'hr@example.com', facts: role('hr') },
  { name: 'a listed numbered variant', email: 'sales1@example.com', facts: role('sales1') },
  { name: 'quoted local part', email: '"info"@example.com', facts: role('info') },
  { name: 'the domain does not matter', email: 'info@gmail.com', facts: role('info') },
  // People and near misses: the whole compared local part must be a role.
  { email: 'john.smith@example.com', facts: person },
  { email: 'jane@example.com', facts: person },
  { name: 'role as a prefix only', email: 'infogirl@example.com', facts: person },
  { name: 'role plus digits is not a role', email: 'admin123@example.com', facts: person },
  { name: 'role as a suffix only', email: 'johnsupport@example.com', facts: person },
  { name: 'role after the plus tag does not count', email: 'john+support@example.com', facts: person },
  { name: 'given name removed from the list', email: 'paris@example.com', facts: person },
  { name: 'initials are not roles', email: 'md@example.com', facts: person },
  { name: 'a year is not a role', email: '2024@example.com', facts: person },
  { name: 'keyboard string is not a role', email: 'asdf@example.com', facts: person },
  { name: 'plus tag only', email: '+info@example.com', facts: person },
  { name: 'empty local part', email: '@example.com', facts: person },
  { name: 'no @: unknown', email: 'plainaddress', facts: { is_role_based_domain: null, role_name: null } },
]);

describe('role-based check', () => {
  it.each([
    ['no-reply@example.com', []],
    ['john.smith@example.com', []],
  ])('%s reports no code (the flag and action carry it)', async (email, codes) => {
    expect(await firedCodes(roleBased, email)).toEqual(codes);
  });
  it('declares the role_based_address step and checked type', () => {
    expect(roleBased.steps).toEqual(['role_based_address']);
    expect(roleBased.checks.role_based_address?.checkedType).toBe('role_based_address');
    expect(roleBased.facts.is_role_based_domain?.expose).toBe('flag');
  });
});

describe('role-based data', () => {
  it('roles.txt is sorted, unique, in compared form, and holds every RFC 2142 name', () => {
    const lines = readFileSync(new URL('../../plugins/role-based/data/roles.txt', import.meta.url), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toEqual([...new Set(lines)].sort());
    for (const line of lines) expect(line).toMatch(/^[a-z0-9]{2,}$/);
    for (const name of [
      'info',
      'marketing',
      'sales',
      'support',
      'abuse',
      'noc',
      'security',
      'postmaster',
      'hostmaster',
      'usenet',
      'news',
      'webmaster',
      'www',
      'uucp',
      'ftp',
    ]) {
      expect(lines).toContain(name);
    }
  });
});
