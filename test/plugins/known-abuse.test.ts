import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { domainAndParents, parseList } from '../../plugins/plugin-data.js';
import knownAbuse from '../../plugins/known-abuse/index.js';
import type { CheckOptions } from '../../src/engine/plugin.js';
import { FactCatalog } from '../../src/engine/run.js';
import { packageRoot } from '../../src/paths.js';
import { compilePolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/load.js';
import { testPlugin } from '../support/plugin-tester.js';

const no = { is_known_abuse_domain: false, known_abuse_match: null };
const unknown = { is_known_abuse_domain: null, known_abuse_match: null };
const listed = (match: string) => ({ is_known_abuse_domain: true, known_abuse_match: match });
const options = (o: { add?: string[]; exempt?: string[] }): Record<string, CheckOptions> => ({ known_abuse_domain: o });
const added = options({ add: ['spam-source.example', 'xn--bcher-kva.example', 'bad.example.co.uk'] });

testPlugin(knownAbuse, [
  { name: 'nothing listed by default', email: 'a@spam-source.example', facts: no },
  { email: 'a@gmail.com', facts: no },
  { email: 'a@example.com', facts: no },
  { name: 'project addition', email: 'a@spam-source.example', options: added, facts: listed('spam-source.example') },
  { name: 'subdomain of an addition', email: 'a@mx.spam-source.example', options: added, facts: listed('spam-source.example') },
  { name: 'deep subdomain of an addition', email: 'a@a.b.spam-source.example', options: added, facts: listed('spam-source.example') },
  { name: 'capitals (structure lower-cases)', email: 'A@Spam-Source.EXAMPLE', options: added, facts: listed('spam-source.example') },
  { name: 'addition under a multi-label suffix', email: 'a@x.bad.example.co.uk', options: added, facts: listed('bad.example.co.uk') },
  { name: 'parent of an addition is not listed', email: 'a@example.co.uk', options: added, facts: no },
  { name: 'sibling of an addition is not listed', email: 'a@good.example.co.uk', options: added, facts: no },
  { name: 'added name as a label prefix', email: 'a@spam-source.example.org', options: added, facts: no },
  { name: 'IDN matched by its punycode form', email: 'a@bücher.example', options: added, facts: listed('xn--bcher-kva.example') },
  { name: 'punycode written as such', email: 'a@mail.xn--bcher-kva.example', options: added, facts: listed('xn--bcher-kva.example') },
  {
    name: 'exemption of a subdomain',
    email: 'a@partner.spam-source.example',
    options: options({ add: ['spam-source.example'], exempt: ['partner.spam-source.example'] }),
    facts: no,
  },
  {
    name: 'exemption covers the subdomains of the exempt domain',
    email: 'a@x.partner.spam-source.example',
    options: options({ add: ['spam-source.example'], exempt: ['partner.spam-source.example'] }),
    facts: no,
  },
  {
    name: 'exemption wins when a domain is both added and exempt',
    email: 'a@spam-source.example',
    options: options({ add: ['spam-source.example'], exempt: ['spam-source.example'] }),
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
  { name: 'invalid address', email: 'a..b@spam-source.example', options: added, facts: unknown },
  { name: 'no @', email: 'plainaddress', facts: unknown },
]);

describe('known-abuse domain list', () => {
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
    const text = readFileSync(join(packageRoot, 'plugins', 'known-abuse', 'data', 'domains.txt'), 'utf8');
    expect(parseList(text).size).toBe(0);
    expect(text).toContain('EMPTY');
  });
});

async function actionFor(email: string, checkOptions?: Record<string, unknown>): Promise<string> {
  const check = { mode: 'hard', action: 'block', ...(checkOptions ? { options: checkOptions } : {}) };
  const doc = { version: '1', default_action: 'allow', checks: { known_abuse_domain: check } };
  const policy = compilePolicy('known-abuse-test', parsePolicy('known-abuse-test.json', JSON.stringify(doc)), new FactCatalog(registry));
  const outcome = await policy.runner.run({
    input: { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'test-project' },
    options: policy.options,
    services: { velocity: { byIp: async () => ({ emails: [], distinctEmails: 0, total: 0, since: [] }) }, now: Date.now },
  });
  const decision = decide(policy, outcome.ruleResults);
  expect(decision.errors).toEqual([]);
  return decision.action;
}

describe('known_abuse_domain check', () => {
  it.each<[string, Record<string, unknown> | undefined, string]>([
    ['a@spam-source.example', undefined, 'allow'],
    ['a@spam-source.example', { add: ['spam-source.example'] }, 'block'],
    ['a@mx.spam-source.example', { add: ['spam-source.example'] }, 'block'],
    ['a@spam-source.example', { add: ['spam-source.example'], exempt: ['spam-source.example'] }, 'allow'],
    ['plainaddress', { add: ['spam-source.example'] }, 'allow'],
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
    await expect(actionFor('a@example.com', checkOptions)).rejects.toThrow(/known_abuse_domain/);
  });
});
