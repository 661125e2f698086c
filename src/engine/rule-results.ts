// json-rules-engine records each run's condition results on a copy of the rule's condition tree, made by
// its RuleResult with the `clone` package: a generic deep clone that tracks every object it copied in an
// array (quadratic in the tree's size) and copies every value list. That copy was an eighth of a policy
// run. This module swaps in a RuleResult that copies only what a run writes to: the tree's nodes (each
// keeps its prototype, so it stays a Condition), not the values they compare with, which a run only reads.
// It replaces the default export of json-rules-engine's rule-result module, which Rule#evaluate reads on
// every run; test/engine/rule-results.test.ts fails if an upgrade moves or changes it.
//
// A rule of PolicyRunner's pool (run.ts) needs no copy at all: its engine runs one request at a time and
// its results are read before the engine runs again, so such a rule (marked with keepResultsInPlace) takes
// each run's results on its own tree, cleared first. Its trees never change, so the order in which the
// engine evaluates each `all`/`any` (Rule#prioritizeConditions: grouping by priority and sorting, on every
// evaluation of every group) is worked out once per group.
import { createRequire } from 'node:module';

interface ConditionNode {
  all?: ConditionNode[];
  any?: ConditionNode[];
  not?: ConditionNode;
  [property: string]: unknown;
}

interface RuleResultModule {
  default: { prototype: object };
}

/** A run's own copy of a condition tree: new nodes, same prototypes, the compared values shared. */
export function copyConditionTree(node: ConditionNode): ConditionNode {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(node)) as ConditionNode, node);
  if (node.all) copy.all = node.all.map(copyConditionTree);
  if (node.any) copy.any = node.any.map(copyConditionTree);
  if (node.not) copy.not = copyConditionTree(node.not);
  return copy;
}

/** Condition trees whose rule takes its results in place (keepResultsInPlace). */
const inPlace = new WeakSet<ConditionNode>();
/** The `all`/`any` lists of those trees, each with its priority groups once worked out. */
const groupsOf = new WeakMap<readonly ConditionNode[], ConditionNode[][] | null>();

/**
 * Lets a rule take each run's results on its own condition tree instead of a copy: only for a rule whose
 * engine never runs two evaluations at once and whose results are read before its next run (run.ts pools
 * its engines for that). `rule` is the engine's Rule instance (engine.rules), whose tree the runs evaluate.
 */
export function keepResultsInPlace(rule: { conditions: ConditionNode }): void {
  inPlace.add(rule.conditions);
  const lists = (node: ConditionNode): void => {
    for (const list of [node.all, node.any]) {
      if (!list) continue;
      groupsOf.set(list, null);
      for (const child of list) lists(child);
    }
    if (node.not) lists(node.not);
  };
  lists(rule.conditions);
}

/**
 * Forgets the last run's results on a tree kept in place, so a node the next run short-circuits past shows
 * none. A node the last run did not evaluate holds none, nor do its children; the root never holds one (the
 * engine evaluates its list directly).
 */
function clearResults(root: ConditionNode): void {
  if (root.all) clearEvaluated(root.all);
  if (root.any) clearEvaluated(root.any);
  if (root.not) clearEvaluated([root.not]);
}

function clearEvaluated(nodes: readonly ConditionNode[]): void {
  for (const node of nodes) {
    if (node.result === undefined) continue;
    node.result = undefined;
    if (node.all) clearEvaluated(node.all);
    else if (node.any) clearEvaluated(node.any);
    else if (node.not) clearEvaluated([node.not]);
    else {
      node.factResult = undefined;
      node.valueResult = undefined;
    }
  }
}

/** Marks the results made here, so a test can tell that the engine still uses this constructor. */
export const TREE_COPY = Symbol('email-trust rule result');

interface RuleResultFields {
  conditions: ConditionNode;
  event: { type: string; params?: Record<string, unknown> };
  priority: number;
  name: unknown;
  result: boolean | null;
  [TREE_COPY]: true;
}

function TreeCopyRuleResult(this: RuleResultFields, conditions: ConditionNode, event: RuleResultFields['event'], priority: number, name: unknown): void {
  if (inPlace.has(conditions)) {
    clearResults(conditions);
    this.conditions = conditions;
  } else this.conditions = copyConditionTree(conditions);
  // Event params are resolved into the result when the engine replaces facts in them: the result's own object.
  this.event = event.params ? { ...event, params: { ...event.params } } : { ...event };
  this.priority = priority;
  this.name = name;
  this.result = null;
  this[TREE_COPY] = true;
}

const ruleResultModule = createRequire(import.meta.url)('json-rules-engine/dist/rule-result.js') as RuleResultModule;
/** The upstream class: its methods (setResult, resolveEventParams, toJSON) serve the results made here. */
export const UpstreamRuleResult = ruleResultModule.default;
TreeCopyRuleResult.prototype = UpstreamRuleResult.prototype;
ruleResultModule.default = TreeCopyRuleResult as unknown as RuleResultModule['default'];

interface RuleModule {
  default: { prototype: { prioritizeConditions(conditions: readonly ConditionNode[]): ConditionNode[][] } };
}

const ruleModule = createRequire(import.meta.url)('json-rules-engine/dist/rule.js') as RuleModule;
/** The upstream method, for every list not of a tree kept in place (its priorities may come from the engine's facts). */
export const upstreamPrioritize = ruleModule.default.prototype.prioritizeConditions;

/** Marks the installed method, so a test can tell that the engine's rules still use it. */
export const GROUPS_ONCE = Symbol('email-trust prioritize once');

function prioritizeOnce(this: unknown, conditions: readonly ConditionNode[]): ConditionNode[][] {
  const known = groupsOf.get(conditions);
  if (known) return known;
  const groups = upstreamPrioritize.call(this, conditions);
  // Run.ts's engines hold no facts, so a group's order rests on the conditions' own priorities alone.
  if (known === null) groupsOf.set(conditions, groups);
  return groups;
}
(prioritizeOnce as unknown as Record<symbol, boolean>)[GROUPS_ONCE] = true;
ruleModule.default.prototype.prioritizeConditions = prioritizeOnce;
