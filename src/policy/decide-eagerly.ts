// A policy's action on one request without the rule engine: every fact its conditions read is computed
// first (all at once), then the conditions are evaluated synchronously, with json-rules-engine's operator
// semantics, and `decide` combines the verdicts as after an engine run. For bulk re-decisions (policy
// replay), where the engine's per-condition promises cost more than the checks themselves; the service's
// requests keep the engine (lazy facts, explain traces). test/policy/decide-eagerly.test.ts holds the two to
// the same actions.
import type { Condition, RequestInput } from '../engine/plugin.js';
import type { RunServices } from '../engine/run.js';
import type { CompiledPolicy } from './compile.js';
import { type Decision, decide } from './decide.js';

/** What a number operator accepts, as json-rules-engine's validator decides it. */
const isNumeric = (v: unknown) => Number.parseFloat(v as string).toString() !== 'NaN';

/** json-rules-engine's default operators (engine-default-operators.js), the ones OPERATORS allows. */
const OPERATIONS: Readonly<Record<string, (fact: unknown, value: unknown) => boolean>> = {
  equal: (a, b) => a === b,
  notEqual: (a, b) => a !== b,
  in: (a, b) => (b as unknown[]).indexOf(a) > -1,
  notIn: (a, b) => (b as unknown[]).indexOf(a) === -1,
  contains: (a, b) => Array.isArray(a) && a.indexOf(b) > -1,
  doesNotContain: (a, b) => Array.isArray(a) && a.indexOf(b) === -1,
  lessThan: (a, b) => isNumeric(a) && (a as number) < (b as number),
  lessThanInclusive: (a, b) => isNumeric(a) && (a as number) <= (b as number),
  greaterThan: (a, b) => isNumeric(a) && (a as number) > (b as number),
  greaterThanInclusive: (a, b) => isNumeric(a) && (a as number) >= (b as number),
};

export interface EagerOptions {
  /** Facts taken as given instead of computed (see RunRequest.given). */
  given?(name: string): unknown;
}

/** The policy's decision on one request, the same as evaluate()'s. */
export async function decideEagerly(policy: CompiledPolicy, input: RequestInput, services: RunServices, options: EagerOptions = {}): Promise<Decision> {
  const { conditions } = policy;
  if (conditions.each.length === 0) return decide(policy, []);
  const fact = policy.runner.facts({ input, options: policy.options, services, timed: false, ...(options.given ? { given: options.given } : {}) });
  const values = await Promise.all(conditions.facts.map(fact));
  const known = new Map<string, unknown>();
  conditions.facts.forEach((name, i) => {
    known.set(name, values[i]);
  });
  const children = conditions.each.map((c) => holds(c, known));
  return decide(policy, children.includes(true) ? [{ name: conditions.rule, children }] : []);
}

function holds(condition: Condition, facts: ReadonlyMap<string, unknown>): boolean {
  if ('all' in condition) return condition.all.every((c) => holds(c, facts));
  if ('any' in condition) return condition.any.some((c) => holds(c, facts));
  if ('not' in condition) return !holds(condition.not, facts);
  const operation = OPERATIONS[condition.operator];
  if (!operation) throw new Error(`unknown operator ${condition.operator}`);
  return operation(facts.get(condition.fact) ?? null, condition.value);
}
