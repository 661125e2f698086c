import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { domainAndParents, parseList } from '../../plugins/plugin-data.js';
import spamTrap from '../../plugins/spam-trap/index.js';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { FactCatalog } from '../../src/engine/run.js';
import { packageRoot } from '../../src/paths.js';
import { compilePolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/load.js';
import { testPlugin } from '../support/plugin-tester.js';

const no = { is_spam_trap_domain: false, spam_trap_match: null };
const unknown = { is_spam_trap_domain: null, spam_trap_match: null };
const listed = (match: string) => ({ is_spam_trap_domain: true, spam_trap_match: match });
const options = (o: { add?: string[]; exempt?: string[] }): Record<string, CheckOptions> => ({ spam_trap_domain: o });
const added = options({ add: ['trap-operator.example', 'xn--bcher-kva.example', 'bad.example.co.uk'] });

testPlugin(spamTrap, [
  { name: 'nothing listed by default', email: 'a@trap-operator.example', facts: no },
  { email: 'a@gmail.com', facts: no },
  { email: 'a@example.com', facts: no },
  { name: 'project addition', email: 'a@trap-operator.example', options: added, facts: listed('trap-operator.example') },
  { name: 'subdomain of an addition', email: 'a@mx.trap-operator.example', options: added, facts: listed('trap-operator.example') },
  { name: 'deep subdomain of an addition', email: 'a@a.b.trap-operator.example', options: added, facts: listed('trap-operator.example') },
  { name: 'capitals (structure lower-cases)', email: 'A@Trap-Operator.EXAMPLE', options: added, facts: listed('trap-operator.example') },
  { name: 'addition under a multi-label suffix', email: 'a@x.bad.example.co.uk', options: added, facts: listed('bad.example.co.uk') },
  { name: 'parent of an addition is not listed', email: 'a@example.co.uk', options: added, facts: no },
  { name: 'sibling of an addition is not listed', email: 'a@good.example.co.uk', options: added, facts: no },
  { name: 'added name as a label prefix', email: 'a@trap-operator.example.org', options: added, facts: no },
  { name: 'IDN matched by its punycode form', email: 'a@bücher.example', options: added, facts: listed('xn--bcher-kva.example') },
  { name: 'punycode written as such', email: 'a@mail.xn--bcher-kva.example', options: added, facts: listed('xn--bcher-kva.example') },
  {
    name: 'exemption of a subdomain',
    email: 'a@partner.trap-operator.example',
    options: options({ add: ['trap-operator.example'], exempt: ['partner.trap-operator.example'] }),
    facts: no,
  },
  {
    name: 'exemption covers the subdomains of the exempt domain',
    email: 'a@x.partner.trap-operator.example',
    options: options({ add: ['trap-operator.example'], exempt: ['partner.trap-operator.example'] }),
    facts: no,
  },
  {
    name: 'exemption wins when a domain is both added and exempt',
    email: 'a@trap-operator.example',
    options: options({ add: ['trap-operator.example'], exempt: ['trap-operator.example'] }),
    facts: no,
  },
  {
    name: 'a more specific addition wins over an exempt parent',
    email: 'a@bad.mycompany.example',
    options: options({ add: ['bad.mycompany.example'], exempt: ['mycompany.example'] }),
    facts: listed('bad.mycompany.example'),
  },
  { name: 'domain is a public suffix: exact lookup', email: 'a@co.uk', options: options({ add: ['co.uk'] }), facts: listed('co.uk') },
  { name: 'IPv4 literal', email: 'a@[192.168.0.1]', options: added, facts: unknown },
  { name: 'invalid address', email: 'a..b@trap-operator.example', options: added, facts: unknown },
  { name: 'no @', email: 'plainaddress', facts: unknown },
]);

describe('spam-trap domain list', () => {
  it('parses one lower-case domain per line, skipping comments and blank lines', () => {
    expect([...parseList('# header\n\nspam.example\n  Other.Example  \n# note\nspam.example\n')]).toEqual(['spam.example', 'other.example']);
  });

  it('walks a domain up to its registrable domain', () => {
    expect(domainAndParents('a.b.example.co.uk', 'example.co.uk')).toEqual(['a.b.example.co.uk', 'b.example.co.uk', 'example.co.uk']);
    expect(domainAndParents('example.co.uk', 'example.co.uk')).toEqual(['example.co.uk']);
    expect(domainAndParents('co.uk', null)).toEqual(['co.uk']);
    expect(domainAndParents('xexample.co.uk', 'example.co.uk')).toEqual(['xexample.co.uk']);
  });

  it('ships an empty list whose header says so', () => {
    const text = readFileSync(join(packageRoot, 'plugins', 'spam-trap', 'data', 'domains.txt'), 'utf8');
    expect(parseList(text).size).toBe(0);
    expect(text).toContain('EMPTY');
  });
});

async function actionFor(email: string, checkOptions?: Record<string, unknown>): Promise<string> {
  const check = { mode: 'hard', action: 'block', ...(checkOptions ? { options: checkOptions } : {}) };
  const doc = { version: '1', default_action: 'allow', checks: { spam_trap_domain: check } };
  const policy = compilePolicy('spam-trap-test', parsePolicy('spam-trap-test.json', JSON.stringify(doc)), new FactCatalog(registry));
  const outcome = await policy.runner.run({
    input: { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'test-project' },
    options: policy.options,
    services: { velocity: { byIp: async () => ({ emails: [], distinctEmails: 0, total: 0, since: [] }) }, now: Date.now },
  });
  const decision = decide(policy, outcome.ruleResults);
  expect(decision.errors).toEqual([]);
  return decision.action;
}

describe('spam_trap_domain check', () => {
  it.each<[string, Record<string, unknown> | undefined, string]>([
    ['a@trap-operator.example', undefined, 'allow'],
    ['a@trap-operator.example', { add: ['trap-operator.example'] }, 'block'],
    ['a@mx.trap-operator.example', { add: ['trap-operator.example'] }, 'block'],
    ['a@trap-operator.example', { add: ['trap-operator.example'], exempt: ['trap-operator.example'] }, 'allow'],
    ['plainaddress', { add: ['trap-operator.example'] }, 'allow'],
  ])('%s with %j → %s', async (email, checkOptions, action) => {
    expect(await actionFor(email, checkOptions)).toBe(action);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an upper-case domain', { add: ['Spam.example'] }],
    ['a Unicode domain', { add: ['bücher.example'] }],
    ['a trailing dot', { exempt: ['spam.example.'] }],
    ['a 254-character domain', { add: [`${'a'.repeat(250)}.com`] }],
    ['more than 10,000 entries', { add: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) }],
    ['an unknown option', { domains: ['spam.example'] }],
  ])('refuses options with %s', async (_what, checkOptions) => {
    await expect(actionFor('a@example.com', checkOptions)).rejects.toThrow(/spam_trap_domain/);
  });
});
