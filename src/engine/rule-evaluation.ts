// json-rules-engine evaluates a rule's condition tree with a promise for every condition, every priority
// group and every `all`/`any`: about 400 promises and a third of the memory a verify allocates. The facts of
// our runs are nearly all at hand by the time a rule reads them (a plugin runs once per request, and most
// answer without I/O), so this module installs a Rule#evaluate that walks the tree synchronously, with the
// upstream method's semantics:
// - an `all`/`any` evaluates its priority groups in order, highest first, and stops after the first group
//   that decides it (an `all` with a false, an `any` with a true); every condition of a group is evaluated;
// - a list of one condition is that condition; an empty list holds; `not` negates its one condition;
// - each evaluated node takes its `result`, a comparison also its `factResult` and `valueResult`.
// When a fact is not at hand (its plugin waits for I/O or for another plugin's facts), the walk still reads
// every fact of that priority group (so that their plugins start, as the upstream method starts them all at
// once), then waits for those plugins and walks the rule again: the facts it read are answered at once, and
// it reads no fact the upstream method would not have read. A rule settles with one promise, or one per wait.
//
// Only for the engines of run.ts (its almanac answers facts without a wait: factNow) and for trees of plain
// comparisons (the compiler emits no fact references, params, paths or condition references); anything else
// goes through the upstream method. test/engine/rule-evaluation.test.ts fails if an upgrade moves or changes
// what is replaced here, and compares both methods' results on every policy of the repository.
//
// The rules of a run go through runRules (below) rather than Engine#run: the same priority sets (the engine's
// prioritizeRules) in the same order, a rule's result taken from the walk without a promise when it settles at
// once. The same test holds runRules to Engine#run's results on every policy's checks and verdict.
import { createRequire } from 'node:module';

/** What factNow answers for a fact whose plugin has not settled: the walk waits for the plugins in `waits`, then walks again. */
export const NOT_YET = Symbol('email-trust fact not yet at hand');

export interface NowAlmanac {
  /**
   * The value of a fact when at hand, running its plugin if it has not run (and answering at once when that
   * plugin settles without a wait); NOT_YET otherwise, after adding the plugin's run to `waits`. Marks the
   * fact as read, as the almanac's factValue does.
   */
  factNow(fact: string, waits: Set<Promise<unknown>>): unknown;
}

interface Operator {
  evaluate(factValue: unknown, jsonValue: unknown): unknown;
}

interface ConditionNode {
  all?: ConditionNode[];
  any?: ConditionNode[];
  not?: ConditionNode;
  fact?: string;
  operator?: string;
  value?: unknown;
  params?: unknown;
  path?: unknown;
  condition?: unknown;
  result?: unknown;
  factResult?: unknown;
  valueResult?: unknown;
}

interface RuleResultInstance {
  conditions: ConditionNode;
  event: unknown;
  setResult(result: boolean): void;
}

interface RuleInstance {
  conditions: ConditionNode;
  ruleEvent: unknown;
  priority: number;
  name: unknown;
  engine: { operators: Map<string, Operator>; replaceFactsInEventParams?: boolean };
  prioritizeConditions(conditions: readonly ConditionNode[]): ConditionNode[][];
  listeners(event: string): unknown[];
  emitAsync(event: string, ...args: unknown[]): Promise<unknown>;
  evaluate(almanac: unknown): Promise<RuleResultInstance>;
}

interface RuleModule {
  default: { prototype: RuleInstance };
}
interface RuleResultModule {
  default: new (conditions: ConditionNode, event: unknown, priority: number, name: unknown) => RuleResultInstance;
}

const require = createRequire(import.meta.url);
const ruleModule = require('json-rules-engine/dist/rule.js') as RuleModule;
const ruleResultModule = require('json-rules-engine/dist/rule-result.js') as RuleResultModule;

/** The upstream method, for the rules and almanacs this one leaves to it. */
export const upstreamRuleEvaluate = ruleModule.default.prototype.evaluate;

/** Marks the installed method, so a test can tell that the engine's rules still use it. */
export const WALKED_EVALUATE = Symbol('email-trust rule walk');

const isFactReference = (value: unknown) => typeof value === 'object' && value !== null && Object.hasOwn(value, 'fact');

/** Whether every node of a tree is one the walk evaluates as the upstream method does; worked out once per tree. */
const walkable = new WeakMap<ConditionNode, boolean>();

function isWalkable(node: ConditionNode, operators: Map<string, Operator>): boolean {
  if (node.condition !== undefined) return false; // a condition reference
  const list = node.all ?? node.any;
  if (list) return list.every((child) => isWalkable(child, operators));
  if (node.not) return isWalkable(node.not, operators);
  return (
    typeof node.fact === 'string' &&
    typeof node.operator === 'string' &&
    operators.get(node.operator) !== undefined &&
    node.params === undefined &&
    node.path === undefined &&
    !isFactReference(node.value)
  );
}

/** One walk of a rule's tree: the almanac, the engine's operators, and the plugins it found not yet settled. */
interface Walk {
  rule: RuleInstance;
  almanac: NowAlmanac;
  operators: Map<string, Operator>;
  waits: Set<Promise<unknown>>;
}

/** A node's outcome: whether it holds, or NOT_YET when a fact it needs is not at hand. */
type Outcome = boolean | typeof NOT_YET;

function evaluateNode(node: ConditionNode, walk: Walk): Outcome {
  const list = node.all ?? node.any;
  if (list || node.not) {
    let held: Outcome;
    if (node.all) held = evaluateList(node.all, 'all', walk);
    else if (node.any) held = evaluateList(node.any, 'any', walk);
    else {
      held = evaluateList([node.not as ConditionNode], 'all', walk);
      if (held !== NOT_YET) held = !held;
    }
    if (held === NOT_YET) return NOT_YET;
    node.result = held === true;
    return held === true;
  }
  const fact = walk.almanac.factNow(node.fact as string, walk.waits);
  if (fact === NOT_YET) return NOT_YET;
  const passes = (walk.operators.get(node.operator as string) as Operator).evaluate(fact, node.value);
  node.factResult = fact;
  node.valueResult = node.value;
  node.result = passes;
  return passes === true;
}

/** An `all` or `any` list, by priority group (Rule#prioritizeConditions), as the upstream method runs it. */
function evaluateList(conditions: readonly ConditionNode[], operator: 'all' | 'any', walk: Walk): Outcome {
  if (conditions.length === 0) return true;
  if (conditions.length === 1) return evaluateNode(conditions[0] as ConditionNode, walk);
  let held = operator === 'all';
  for (const group of walk.rule.prioritizeConditions(conditions)) {
    if (operator === 'all' ? !held : held) break;
    let notYet = false;
    let every = true;
    let some = false;
    for (const condition of group) {
      const outcome = evaluateNode(condition, walk);
      if (outcome === NOT_YET) notYet = true;
      else if (outcome) some = true;
      else every = false;
    }
    if (notYet) return NOT_YET;
    held = operator === 'all' ? every : some;
  }
  return held;
}

function evaluateRoot(root: ConditionNode, walk: Walk): Outcome {
  if (root.any) return evaluateList(root.any, 'any', walk);
  if (root.all) return evaluateList(root.all, 'all', walk);
  const held = evaluateList([root.not as ConditionNode], 'all', walk);
  return held === NOT_YET ? NOT_YET : !held;
}

/**
 * A rule's result by the walk, at once when every fact it reads is at hand (a promise only for a wait or a
 * listener of the rule's own events); undefined for a rule or almanac the walk leaves to the upstream method.
 */
function walkRule(rule: RuleInstance, almanac: unknown): RuleResultInstance | Promise<RuleResultInstance> | undefined {
  const operators = rule.engine?.operators;
  if (typeof (almanac as Partial<NowAlmanac>)?.factNow !== 'function' || !operators || rule.engine.replaceFactsInEventParams) return undefined;
  let known = walkable.get(rule.conditions);
  if (known === undefined) {
    known = isWalkable(rule.conditions, operators) && (rule.conditions.all ?? rule.conditions.any ?? rule.conditions.not) !== undefined;
    walkable.set(rule.conditions, known);
  }
  if (!known) return undefined;
  // The result's tree is the rule's own (cleared) or a copy, as rule-results.ts decides.
  const ruleResult = new ruleResultModule.default(rule.conditions, rule.ruleEvent, rule.priority, rule.name);
  const walk: Walk = { rule, almanac: almanac as NowAlmanac, operators, waits: new Set() };
  const settle = (): RuleResultInstance | Promise<RuleResultInstance> => {
    const held = evaluateRoot(ruleResult.conditions, walk);
    if (held === NOT_YET) {
      const waits = [...walk.waits];
      walk.waits.clear();
      return Promise.all(waits).then(settle);
    }
    ruleResult.setResult(held);
    // The rule's own success/failure event, as the upstream method emits it (nothing of ours listens).
    const event = held ? 'success' : 'failure';
    if (rule.listeners(event).length === 0) return ruleResult;
    return rule.emitAsync(event, ruleResult.event, almanac, ruleResult).then(() => ruleResult);
  };
  return settle();
}

function walkedEvaluate(this: RuleInstance, almanac: unknown): Promise<RuleResultInstance> {
  try {
    return Promise.resolve(walkRule(this, almanac) ?? upstreamRuleEvaluate.call(this, almanac));
  } catch (error) {
    return Promise.reject(error);
  }
}

(walkedEvaluate as unknown as Record<symbol, boolean>)[WALKED_EVALUATE] = true;
ruleModule.default.prototype.evaluate = walkedEvaluate as unknown as RuleInstance['evaluate'];

interface RulesEngine {
  prioritizeRules(): RuleInstance[][];
}

/** What runRules answers: the rules that held and those that did not, each in the order they settled. */
export interface RulesOutcome<R> {
  results: R[];
  failureResults: R[];
}

/**
 * Engine#run's evaluation, for the engines of run.ts (no facts of the engine's own, no listeners of its events):
 * the rules by priority set, highest first, every rule of a set evaluated and each set after the one before
 * has settled; after a set in which a rule that `halts` names held, no further set (Engine#stop from a
 * 'success' listener). Engine#run chains every set on a promise, and each rule's result on two more and an
 * emit: about 8 promises a set, where a verdict with stop_on_block has a set per parent rule. Here a set whose
 * rules settle at once (facts at hand) is taken synchronously, and the run makes a promise only where a rule
 * waits. The results are the engine's own RuleResults, in the order Engine#run would settle them.
 */
export function runRules<R extends { result: boolean; name: unknown }>(
  engine: object,
  almanac: NowAlmanac,
  halts?: (name: string) => boolean,
): RulesOutcome<R> | Promise<RulesOutcome<R>> {
  const sets = (engine as RulesEngine).prioritizeRules();
  const outcome: RulesOutcome<R> = { results: [], failureResults: [] };
  let halted = false;
  const record = (ruleResult: RuleResultInstance): void => {
    const result = ruleResult as unknown as R;
    if (!result.result) {
      outcome.failureResults.push(result);
      return;
    }
    outcome.results.push(result);
    if (halts?.(result.name as string)) halted = true;
  };
  let next = 0;
  const from = (): RulesOutcome<R> | Promise<RulesOutcome<R>> => {
    while (next < sets.length && !halted) {
      const set = sets[next++] as RuleInstance[];
      let waits: Array<Promise<void>> | undefined;
      for (const rule of set) {
        // rule.evaluate unless it is the walk (a test may put the upstream method back to compare the two).
        const settled = (rule.evaluate === walkedEvaluate ? walkRule(rule, almanac) : undefined) ?? rule.evaluate(almanac);
        if (!(settled instanceof Promise)) record(settled);
        else if (waits) waits.push(settled.then(record));
        else waits = [settled.then(record)];
      }
      if (waits) return Promise.all(waits).then(from);
    }
    return outcome;
  };
  return from();
}
