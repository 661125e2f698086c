// json-rules-engine records each run's condition results on a copy of the rule's condition tree, made by
// its RuleResult with the `clone` package: a generic deep clone that tracks every object it copied in an
// array (quadratic in the tree's size) and copies every value list. That copy was an eighth of a policy
// run. This module swaps in a RuleResult that copies only what a run writes to: the tree's nodes (each
// keeps its prototype, so it stays a Condition), not the values they compare with, which a run only reads.
// It replaces the default export of json-rules-engine's rule-result module, which Rule#evaluate reads on
// every run; test/engine/rule-results.test.ts fails if an upgrade moves or changes it.
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
  this.conditions = copyConditionTree(conditions);
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
