// The tests every domain-list plugin (known-abuse, spam-trap) shares: the project's add and exempt
// lists (policy options and project lists) over the domain and its parents, the shipped list's header, and
// the check's options.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseList } from '../../plugins/plugin-data.js';
import type { CheckOptions, Plugin } from '../../src/engine/plugin.js';
import { packageRoot } from '../../src/paths.js';
import { decisionFor, testPlugin } from './plugin-tester.js';

export interface ListedDomainPlugin {
  plugin: Plugin;
  /** The check's name (its step id). */
  check: string;
  /** The flag fact and the match fact. */
  flag: string;
  match: string;
  /** Whether plugins/<id>/data/domains.txt ships empty (its header then says EMPTY). */
  shipsEmpty: boolean;
}

export function listedDomainSuite({ plugin, check, flag, match, shipsEmpty }: ListedDomainPlugin): void {
  const no = { [flag]: false, [match]: null };
  const unknown = { [flag]: null, [match]: null };
  const listed = (domain: string) => ({ [flag]: true, [match]: domain });
  const options = (o: { add?: string[]; exempt?: string[] }): Record<string, CheckOptions> => ({ [check]: o });
  const added = options({ add: ['listed.example', 'xn--bcher-kva.example', 'bad.example.co.uk'] });
  const addedAndExempt = options({ add: ['listed.example'], exempt: ['partner.listed.example'] });

  testPlugin(plugin, [
    { email: 'a@gmail.com', facts: no, fires: [] },
    { email: 'a@example.com', facts: no, fires: [] },
    { name: 'without the addition', email: 'a@listed.example', facts: no, fires: [] },
    { name: 'project addition', email: 'a@listed.example', options: added, facts: listed('listed.example'), fires: [check] },
    { name: 'subdomain of an addition', email: 'a@mx.listed.example', options: added, facts: listed('listed.example'), fires: [check] },
    { name: 'deep subdomain of an addition', email: 'a@a.b.listed.example', options: added, facts: listed('listed.example'), fires: [check] },
    { name: 'capitals (structure lower-cases)', email: 'A@Listed.EXAMPLE', options: added, facts: listed('listed.example'), fires: [check] },
    { name: 'addition under a multi-label suffix', email: 'a@x.bad.example.co.uk', options: added, facts: listed('bad.example.co.uk'), fires: [check] },
    { name: 'parent of an addition is not listed', email: 'a@example.co.uk', options: added, facts: no, fires: [] },
    { name: 'sibling of an addition is not listed', email: 'a@good.example.co.uk', options: added, facts: no, fires: [] },
    { name: 'added name as a label prefix', email: 'a@listed.example.org', options: added, facts: no, fires: [] },
    { name: 'IDN matched by its punycode form', email: 'a@bücher.example', options: added, facts: listed('xn--bcher-kva.example'), fires: [check] },
    { name: 'punycode written as such', email: 'a@mail.xn--bcher-kva.example', options: added, facts: listed('xn--bcher-kva.example'), fires: [check] },
    { name: 'exemption of a subdomain', email: 'a@partner.listed.example', options: addedAndExempt, facts: no, fires: [] },
    { name: 'exemption covers its subdomains', email: 'a@x.partner.listed.example', options: addedAndExempt, facts: no, fires: [] },
    {
      name: 'exemption wins when a domain is both added and exempt',
      email: 'a@listed.example',
      options: options({ add: ['listed.example'], exempt: ['listed.example'] }),
      facts: no,
      fires: [],
    },
    {
      name: 'a more specific addition wins over an exempt parent',
      email: 'a@bad.mycompany.example',
      options: options({ add: ['bad.mycompany.example'], exempt: ['mycompany.example'] }),
      facts: listed('bad.mycompany.example'),
      fires: [check],
    },
    { name: 'domain is a public suffix: exact lookup', email: 'a@co.uk', options: options({ add: ['co.uk'] }), facts: listed('co.uk'), fires: [check] },
    { name: 'IPv4 literal', email: 'a@[192.168.0.1]', options: added, facts: unknown, fires: [] },
    { name: 'invalid address', email: 'a..b@listed.example', options: added, facts: unknown, fires: [] },
    { name: 'no @', email: 'plainaddress', facts: unknown, fires: [] },
    { name: 'no @, with an addition', email: 'plainaddress', options: added, facts: unknown, fires: [] },
  ]);

  // The project's lists in the database (`email-trust project lists`): `<id>` adds, `not-<id>` exempts, with
  // the policy's options as one layer of the project's own entries (most specific name first, exempt wins a tie).
  const exemptList = `not-${plugin.id}`;
  const withLists = {
    lists: { [plugin.id]: ['listed.example', 'xn--bcher-kva.example', 'bad.mycompany.example'], [exemptList]: ['partner.listed.example'] },
  };
  testPlugin(
    plugin,
    [
      { name: 'project list (database)', email: 'a@listed.example', facts: listed('listed.example'), fires: [check] },
      { name: 'subdomain of a project list entry', email: 'a@mx.listed.example', facts: listed('listed.example'), fires: [check] },
      { name: 'IDN on a project list, by punycode', email: 'a@bücher.example', facts: listed('xn--bcher-kva.example'), fires: [check] },
      { name: 'project list exemption of a subdomain', email: 'a@x.partner.listed.example', facts: no, fires: [] },
      { name: 'domain on no list', email: 'a@example.com', facts: no, fires: [] },
      {
        name: 'policy exempt of the same name beats the project list',
        email: 'a@listed.example',
        options: options({ exempt: ['listed.example'] }),
        facts: no,
        fires: [],
      },
      {
        name: 'a project list entry more specific than a policy exemption wins',
        email: 'a@bad.mycompany.example',
        options: options({ exempt: ['mycompany.example'] }),
        facts: listed('bad.mycompany.example'),
        fires: [check],
      },
      {
        name: 'a project list exemption more specific than a policy addition wins',
        email: 'a@partner.listed.example',
        options: options({ add: ['listed.example'] }),
        facts: no,
        fires: [],
      },
      {
        name: 'policy add beats a less specific project list exemption',
        email: 'a@bad.partner.listed.example',
        options: options({ add: ['bad.partner.listed.example'] }),
        facts: listed('bad.partner.listed.example'),
        fires: [check],
      },
      {
        name: 'project list exemption of the same name beats a policy add',
        email: 'a@partner.listed.example',
        options: options({ add: ['partner.listed.example'] }),
        facts: no,
        fires: [],
      },
    ],
    withLists,
  );

  if (shipsEmpty) {
    it(`${plugin.id} ships an empty list whose header says so`, () => {
      const text = readFileSync(join(packageRoot, 'plugins', plugin.id, 'data', 'domains.txt'), 'utf8');
      expect(parseList(text).size).toBe(0);
      expect(text).toContain('EMPTY');
    });
  }

  describe(`${check} check`, () => {
    const decide = async (email: string, checkOptions?: Record<string, unknown>) => {
      const decision = await decisionFor({ [check]: { mode: 'hard', action: 'block', ...(checkOptions ? { options: checkOptions } : {}) } }, email);
      return { action: decision.action, errors: decision.errors };
    };

    it('takes its action when it fires, naming its code; default_action otherwise', async () => {
      const code = plugin.checks[check]?.code;
      expect(code).toMatch(/^domain_is_/);
      expect(await decide('a@listed.example', { add: ['listed.example'] })).toEqual({ action: 'block', errors: [code] });
      expect(await decide('a@listed.example')).toEqual({ action: 'allow', errors: [] });
    });

    it.each<[string, Record<string, unknown>]>([
      ['an upper-case domain', { add: ['Listed.example'] }],
      ['a Unicode domain', { add: ['bücher.example'] }],
      ['a trailing dot', { exempt: ['listed.example.'] }],
      ['a 254-character domain', { add: [`${'a'.repeat(250)}.com`] }],
      ['more than 10,000 entries', { add: Array.from({ length: 10_001 }, (_, i) => `d${i}.example`) }],
      ['an unknown option', { domains: ['listed.example'] }],
    ])('refuses options with %s', async (_what, checkOptions) => {
      await expect(decide('a@example.com', checkOptions)).rejects.toThrow(new RegExp(check));
    });
  });
}
