// RunRequest.explain: a run keeps every rule's condition results (fired or not) as plain data, with the
// fact values json-rules-engine saw (its RuleResults' own copy of the conditions), and keeps nothing when not
// asked. A run that throws leaves nothing for the next.
import { describe, expect, it } from 'vitest';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import type { Plugin } from '../../src/engine/plugin.js';
import { PolicyRunner, type RunOutcome } from '../../src/engine/run.js';
import { OFFLINE } from '../../src/network/offline.js';
import { anyOfRule, ruleOf } from '../../src/policy/rules.js';

const cheap: Plugin = {
  id: 'cheap',
  description: 'test plugin cheap',
  steps: [],
  facts: { color: { type: 'string', description: 'a color' }, size: { type: 'number', description: 'a size' } },
  checks: {},
  needs: [],
  run: async () => ({ color: 'red', size: 7 }),
};

const priority = () => 1;

const runner = new PolicyRunner(new FactCatalog([cheap]), [
  anyOfRule('policy', [{ fact: 'color', operator: 'equal', value: 'red' }, { all: [{ fact: 'size', operator: 'greaterThan', value: 10 }] }], priority),
  ruleOf('never', { not: { fact: 'size', operator: 'lessThan', value: 100 } }, priority),
]);

const run = (explain?: boolean): Promise<RunOutcome> =>
  runner.run({
    input: { email: 'a@example.com', ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
    options: {},
    services: { velocity: noHistory, network: OFFLINE, now: Date.now },
    ...(explain === undefined ? {} : { explain }),
  });

describe('a run asked to explain', () => {
  it('keeps every rule, fired or not, with each condition’s result and the fact value it saw', async () => {
    const outcome = await run(true);
    expect(outcome.fired.map((r) => r.name)).toEqual(['policy']);
    expect(outcome.rules).toEqual([
      {
        name: 'policy',
        fired: true,
        conditions: {
          any: [
            { fact: 'color', operator: 'equal', value: 'red', result: true, factResult: 'red' },
            { all: [{ fact: 'size', operator: 'greaterThan', value: 10, result: false, factResult: 7 }], result: false },
          ],
          result: true,
        },
      },
      { name: 'never', fired: false, conditions: { not: { fact: 'size', operator: 'lessThan', value: 100, result: true, factResult: 7 }, result: false } },
    ]);
  });

  it('keeps no condition results when not asked (explain absent or false)', async () => {
    for (const explain of [undefined, false]) {
      const outcome = await run(explain);
      expect(outcome.fired.map((r) => r.name)).toEqual(['policy']);
      expect(outcome.rules).toBeUndefined();
    }
  });

  it('gives each run its own results: a later run does not change an earlier one', async () => {
    const first = await run(true);
    const before = JSON.stringify(first.rules);
    await run(true);
    expect(JSON.stringify(first.rules)).toBe(before);
  });
});

describe('a run that throws', () => {
  const three: Plugin = {
    id: 'three',
    description: 'test plugin three',
    steps: [],
    facts: { c: { type: 'boolean', description: 'c' }, a: { type: 'boolean', description: 'a' }, b: { type: 'boolean', description: 'b' } },
    checks: {},
    needs: [],
    run: async () => ({ c: true, a: true, b: true }),
  };
  // c first; when it holds, a, then b.
  const nested = new PolicyRunner(new FactCatalog([three]), [
    ruleOf(
      'nested',
      {
        all: [
          { fact: 'c', operator: 'equal', value: true },
          {
            all: [
              { fact: 'a', operator: 'equal', value: true },
              { fact: 'b', operator: 'equal', value: true },
            ],
          },
        ],
      },
      (fact) => ({ c: 90, a: 50, b: 1 })[fact] ?? 1,
    ),
  ]);
  const runWith = (given: (name: string) => unknown) =>
    nested.run({
      input: { email: 'a@example.com', ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
      options: {},
      services: { velocity: noHistory, network: OFFLINE, now: Date.now },
      explain: true,
      given,
    });

  it('leaves no result behind for the next run: its engine is not used again', async () => {
    // c and a hold, then reading b throws: the run fails with a and c's results written.
    await expect(
      runWith((name) => {
        if (name === 'b') throw new Error('b cannot be read');
        return undefined;
      }),
    ).rejects.toThrow('b cannot be read');
    // Now c fails: a and b are never evaluated, and show no result (not the failed run's `true` for a).
    const outcome = await runWith((name) => (name === 'c' ? false : undefined));
    expect(outcome.rules).toEqual([
      {
        name: 'nested',
        fired: false,
        conditions: {
          all: [
            { fact: 'c', operator: 'equal', value: true, result: false, factResult: false },
            {
              all: [
                { fact: 'a', operator: 'equal', value: true },
                { fact: 'b', operator: 'equal', value: true },
              ],
            },
          ],
          result: false,
        },
      },
    ]);
  });
});
