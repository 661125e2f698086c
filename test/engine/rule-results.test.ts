// The rule results of src/engine/rule-results.ts: json-rules-engine must still build its results with the
// constructor installed there (an upgrade that moves RuleResult or changes what it copies fails here), and
// each run must still get its own copy of the condition tree to write its results on, unless its rule is kept
// in place (a pooled engine's, run.ts): then each run's results are on the rule's own tree, the last run's
// cleared, and its groups' priority order is worked out once.
import { createRequire } from 'node:module';
import { Engine, type RuleResult, type TopLevelCondition } from 'json-rules-engine';
import { describe, expect, it } from 'vitest';
import { copyConditionTree, GROUPS_ONCE, keepResultsInPlace, TREE_COPY, UpstreamRuleResult } from '../../src/engine/rule-results.js';

type Node = { result?: boolean; factResult?: unknown; any?: Node[]; all?: Node[]; value?: unknown };

function childrenOf(result: RuleResult | undefined): Node[] {
  return (result?.conditions as Node | undefined)?.any ?? [];
}

/** An engine with one rule `r` firing when any of `conditions` holds. */
function engineOf(conditions: unknown[]): Engine {
  const engine = new Engine([], { allowUndefinedFacts: false, replaceFactsInEventParams: false });
  engine.addRule({ name: 'r', event: { type: 'r' }, conditions: { any: conditions } as TopLevelCondition });
  return engine;
}

function engineWith(value: unknown): Engine {
  const engine = engineOf([
    { fact: 'size', operator: 'greaterThan', value: 10, priority: 1 },
    { all: [{ fact: 'kind', operator: 'in', value: ['a', 'b'] }], priority: 1 },
  ]);
  engine.addFact('size', value);
  return engine;
}

describe('rule results made without the generic deep clone', () => {
  it('are built by the installed constructor, with the upstream methods, and record every condition', async () => {
    const engine = engineWith(12);
    const { results } = await engine.run({ kind: 'c' });
    const [result] = results;
    expect(result && TREE_COPY in result, 'json-rules-engine no longer builds results with the installed constructor').toBe(true);
    expect(result).toBeInstanceOf(UpstreamRuleResult);
    expect(result?.result).toBe(true);
    const children = childrenOf(result);
    expect(children.map((c) => c.result)).toEqual([true, false]);
    expect(children[0]?.factResult).toBe(12);
    expect(result?.toJSON(false)).toMatchObject({ name: 'r', result: true, event: { type: 'r' } });
  });

  it("give each run its own tree: a later run does not change an earlier run's results, nor the rule", async () => {
    const engine = engineWith(12);
    const first = (await engine.run({ kind: 'c' })).results[0];
    const second = (await engine.run({ kind: 'a', size: 3 })).results[0];
    expect(childrenOf(second).map((c) => c.result)).toEqual([false, true]);
    expect(childrenOf(first).map((c) => c.result)).toEqual([true, false]);
    const rule = (engine as unknown as { rules: Array<{ conditions: Node }> }).rules[0] as { conditions: Node };
    expect((rule.conditions.any ?? []).map((c) => c.result)).toEqual([undefined, undefined]);
  });

  it('copies the nodes of a tree, keeping their prototypes, and shares the values they compare with', () => {
    class Leaf {
      constructor(readonly value: unknown) {}
    }
    const list = ['a', 'b'];
    const tree = { any: [new Leaf(list), { not: new Leaf(1) }, { all: [new Leaf(2)] }] };
    const copy = copyConditionTree(tree as never) as unknown as typeof tree;
    expect(copy).not.toBe(tree);
    expect(copy.any[0]).not.toBe(tree.any[0]);
    expect(copy.any[0]).toBeInstanceOf(Leaf);
    expect((copy.any[0] as Leaf).value).toBe(list);
    expect((copy.any[1] as { not: Leaf }).not).not.toBe((tree.any[1] as { not: Leaf }).not);
    expect((copy.any[2] as { all: Leaf[] }).all[0]).not.toBe((tree.any[2] as { all: Leaf[] }).all[0]);
    expect(copy).toEqual(tree);
  });
});

describe('rules kept in place (a pooled engine runs one request at a time)', () => {
  function inPlaceEngine(): { engine: Engine; tree: Node } {
    const engine = engineOf([
      { fact: 'size', operator: 'greaterThan', value: 10, priority: 1 },
      // `kind` (priority 50) first: when it fails, `size` inside is never evaluated.
      {
        all: [
          { fact: 'kind', operator: 'equal', value: 'a', priority: 50 },
          { fact: 'size', operator: 'lessThan', value: 5, priority: 1 },
        ],
        priority: 1,
      },
    ]);
    const rule = (engine as unknown as { rules: Array<{ conditions: Node }> }).rules[0] as { conditions: Node };
    keepResultsInPlace(rule as never);
    return { engine, tree: rule.conditions };
  }

  it("write each run's results on the rule's own tree, and clear what the next run does not evaluate", async () => {
    const { engine, tree } = inPlaceEngine();
    const first = (await engine.run({ kind: 'a', size: 3 })).results[0];
    expect(first?.conditions).toBe(tree);
    const inner = (tree.any?.[1]?.all ?? []) as Node[];
    expect(inner.map((c) => c.result)).toEqual([true, true]);
    expect(inner[1]?.factResult).toBe(3);
    const second = (await engine.run({ kind: 'b', size: 12 })).results[0];
    expect(second?.conditions).toBe(tree);
    expect(childrenOf(second).map((c) => c.result)).toEqual([true, false]);
    // `kind` failed, so `size < 5` was not evaluated: it shows no result, not the first run's `true`.
    expect(inner.map((c) => c.result)).toEqual([false, undefined]);
    expect(inner[1]?.factResult).toBeUndefined();
  });

  it('order their groups by priority once, with the installed method, as upstream would', async () => {
    const rulePrototype = (createRequire(import.meta.url)('json-rules-engine/dist/rule.js') as { default: { prototype: Record<string, unknown> } }).default
      .prototype;
    expect(GROUPS_ONCE in (rulePrototype.prioritizeConditions as object), 'json-rules-engine no longer orders groups with the installed method').toBe(true);
    const { engine, tree } = inPlaceEngine();
    const rule = (engine as unknown as { rules: Array<{ prioritizeConditions(list: Node[]): Node[][] }> }).rules[0];
    const list = (tree.any?.[1]?.all ?? []) as Node[];
    const groups = rule?.prioritizeConditions(list);
    expect(groups?.map((g) => g.length)).toEqual([1, 1]);
    expect(groups?.[0]?.[0]).toBe(list[0]);
    expect(rule?.prioritizeConditions(list)).toBe(groups);
    // A list of a tree not kept in place is grouped anew each time.
    const other = [...list];
    expect(rule?.prioritizeConditions(other)).not.toBe(rule?.prioritizeConditions(other));
  });
});
