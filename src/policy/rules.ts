// The rule format of json-rules-engine, known here and nowhere else in src/policy: our conditions (the
// plugin contract's `Condition`) become engine conditions, and a compiled rule carries only its name (what
// it decides is kept beside it by the compiler, so the engine never copies it into results).
import type { RuleProperties, TopLevelCondition } from 'json-rules-engine';
import type { Condition } from '../engine/plugin.js';

/** A condition inside a rule (json-rules-engine does not export its name for it). */
type NestedCondition = Extract<TopLevelCondition, { all: unknown }>['all'][number];

export type EngineRule = RuleProperties & { name: string };

/**
 * The priority of a condition on a fact (higher first within an `all`/`any`, so cheap facts decide before
 * facts that need I/O). Set on every condition here, as the engine holds no fact definitions.
 */
export type FactPriority = (fact: string) => number;

/** A rule that fires when `condition` holds; a higher priority is evaluated first. */
export function ruleOf(name: string, condition: Condition, priorityOf: FactPriority, priority?: number): EngineRule {
  return { name, conditions: topLevel(condition, priorityOf), event: { type: name }, ...(priority === undefined ? {} : { priority }) };
}

/**
 * A rule that fires when any of `conditions` holds, every one of them evaluated (same priority) so the
 * run tells which held: the engine reports them, in order, as the fired rule's `children`.
 */
export function anyOfRule(name: string, conditions: readonly Condition[], priorityOf: FactPriority): EngineRule {
  return { name, conditions: { any: conditions.map((c) => ({ ...nested(c, priorityOf), priority: 1 })) } as TopLevelCondition, event: { type: name } };
}

/** A rule's conditions must be all, any or not: a lone fact test is wrapped in an `all`. */
function topLevel(condition: Condition, priorityOf: FactPriority): TopLevelCondition {
  return 'fact' in condition ? { all: [nested(condition, priorityOf)] } : (nested(condition, priorityOf) as TopLevelCondition);
}

function nested(condition: Condition, priorityOf: FactPriority): NestedCondition {
  if ('all' in condition) return { all: condition.all.map((c) => nested(c, priorityOf)) };
  if ('any' in condition) return { any: condition.any.map((c) => nested(c, priorityOf)) };
  if ('not' in condition) return { not: nested(condition.not, priorityOf) };
  return { fact: condition.fact, operator: condition.operator, value: condition.value, priority: priorityOf(condition.fact) };
}
