// The condition evaluation of src/engine/condition-evaluation.ts: json-rules-engine's conditions must still
// evaluate through the installed method (an upgrade that moves or renames it fails here), give the records
// the upstream method gives, and leave fact references in values to the upstream method.
import { Almanac, Engine } from 'json-rules-engine';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { DIRECT_EVALUATE, directEvaluate, upstreamEvaluate } from '../../src/engine/condition-evaluation.js';
import { noHistory } from '../../src/engine/no-history.js';
import '../../src/engine/run.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicy } from '../../src/policy/load.js';

type Leaf = { fact: string; operator: string; value: unknown; result?: boolean; factResult?: unknown; valueResult?: unknown };

async function runOnce(conditions: Leaf[], facts: Record<string, unknown>) {
  const engine = new Engine([], { allowUndefinedFacts: true, replaceFactsInEventParams: false });
  engine.addRule({ name: 'r', event: { type: 'r' }, conditions: { all: conditions.map((c) => ({ ...c })) } });
  const { results, failureResults } = await engine.run(facts);
  const [result] = [...results, ...failureResults];
  return ((result?.conditions as { all?: Leaf[] } | undefined)?.all ?? []).map(({ result: held, factResult, valueResult }) => ({
    held,
    factResult,
    valueResult,
  }));
}

describe('condition evaluation without Promise.all', () => {
  it('is the method json-rules-engine conditions evaluate with', async () => {
    const engine = new Engine([], { allowUndefinedFacts: true });
    engine.addRule({ name: 'r', event: { type: 'r' }, conditions: { all: [{ fact: 'a', operator: 'equal', value: 1 }] } });
    const condition = (engine as unknown as { rules: Array<{ conditions: { all: object[] } }> }).rules[0]?.conditions.all[0] as Record<string, unknown>;
    const evaluate = condition.evaluate as unknown as Record<symbol, boolean>;
    expect(evaluate[DIRECT_EVALUATE], 'json-rules-engine no longer evaluates conditions with the installed method').toBe(true);
  });

  it.each([
    ['greaterThan', 12, 10, true],
    ['greaterThan', 3, 10, false],
    ['in', 'b', ['a', 'b'], true],
    ['notIn', 'c', ['a', 'b'], true],
    ['equal', null, true, false],
    ['contains', ['x', 'y'], 'y', true],
  ])('%s: fact %j against %j holds: %s, with the fact and the value recorded', async (operator, fact, value, held) => {
    const [leaf] = await runOnce([{ fact: 'f', operator, value }], { f: fact });
    expect(leaf).toEqual({ held, factResult: fact, valueResult: value });
  });

  it('gives the record the upstream method gives', async () => {
    const almanac = new Almanac({ allowUndefinedFacts: true });
    almanac.addRuntimeFact('size', 12);
    const engine = new Engine();
    const engineOperators = (engine as unknown as { operators: Map<string, unknown> }).operators;
    const condition = { fact: 'size', operator: 'greaterThanInclusive', value: 12, params: undefined, path: undefined, isBooleanOperator: () => false };
    const ours = await directEvaluate.call(condition as never, almanac as never, engineOperators as never);
    const theirs = await upstreamEvaluate.call(condition as never, almanac as never, engineOperators as never);
    expect(theirs).toEqual({ result: true, leftHandSideValue: 12, rightHandSideValue: 12, operator: 'greaterThanInclusive' });
    expect(ours).toEqual(theirs);
  });

  it('leaves a value that is a fact reference to the upstream method, which resolves it', async () => {
    const [leaf] = await runOnce([{ fact: 'a', operator: 'equal', value: { fact: 'b' } }], { a: 5, b: 5 });
    expect(leaf).toEqual({ held: true, factResult: 5, valueResult: 5 });
  });
});

describe("a pooled engine's conditions, each with one record of its own", () => {
  it('give every run its own results, however many run at once', async () => {
    const catalog = new FactCatalog(registry);
    const policy = loadPolicy({ name: 'default', file: new URL('../../policies/default.yaml', import.meta.url).pathname }, catalog);
    const addresses = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0 ? `jane${i}@mailinator.com` : i % 3 === 1 ? `12345${i}@example.com` : `jane.doe${i}@example.com`,
    );
    const decide = async (email: string) => {
      const evaluation = await evaluate(
        policy,
        { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
        { velocity: noHistory, now: () => 1_790_000_000_000 },
        { explain: true },
      );
      return { action: evaluation.decision.action, explained: evaluation.explanation?.entries.filter((e) => e.fired).map((e) => e.name) };
    };
    const oneByOne = [];
    for (const email of addresses) oneByOne.push(await decide(email));
    expect(new Set(oneByOne.map((d) => d.action)).size).toBeGreaterThan(1);
    expect(await Promise.all(addresses.map(decide))).toEqual(oneByOne);
  });
});
