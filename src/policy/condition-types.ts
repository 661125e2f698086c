// Conditions checked against the facts they name: unknown facts, and operators or values that do not
// fit a fact's declared type. Works on our own condition form, before any rule is built.

import type { FactCatalog } from '../engine/catalog.js';
import type { Condition, FactSpec } from '../engine/plugin.js';

const NUMERIC_OPERATORS = new Set(['lessThan', 'lessThanInclusive', 'greaterThan', 'greaterThanInclusive']);
const LIST_OPERATORS = new Set(['in', 'notIn']);
const ARRAY_OPERATORS = new Set(['contains', 'doesNotContain']);

export interface ConditionProblem {
  path: (string | number)[];
  message: string;
}

/** Unknown facts and operators that do not fit a fact's type. */
export function conditionProblems(condition: Condition, catalog: FactCatalog, path: (string | number)[] = []): ConditionProblem[] {
  if ('all' in condition) return condition.all.flatMap((c, i) => conditionProblems(c, catalog, [...path, 'all', i]));
  if ('any' in condition) return condition.any.flatMap((c, i) => conditionProblems(c, catalog, [...path, 'any', i]));
  if ('not' in condition) return conditionProblems(condition.not, catalog, [...path, 'not']);
  const owner = catalog.owner.get(condition.fact);
  if (!owner) return [{ path: [...path, 'fact'], message: `unknown fact "${condition.fact}"` }];
  const spec = owner.facts[condition.fact] as FactSpec;
  const misfit = operatorMisfit(condition.operator, spec, condition.value);
  return misfit ? [{ path: [...path, misfit.at], message: `${misfit.message} (fact ${condition.fact} is ${describeType(spec)})` }] : [];
}

function operatorMisfit(operator: string, spec: FactSpec, value: unknown): { at: 'operator' | 'value'; message: string } | null {
  if (NUMERIC_OPERATORS.has(operator)) {
    if (spec.type !== 'integer' && spec.type !== 'number') return { at: 'operator', message: `operator ${operator} needs a numeric fact` };
    return typeof value === 'number' ? null : { at: 'value', message: `operator ${operator} needs a number value` };
  }
  if (ARRAY_OPERATORS.has(operator)) {
    return spec.type === 'array' ? null : { at: 'operator', message: `operator ${operator} needs an array fact` };
  }
  if (LIST_OPERATORS.has(operator)) {
    if (!Array.isArray(value)) return { at: 'value', message: `operator ${operator} needs a list value` };
    const bad = value.find((v) => !fitsType(spec, v));
    return bad === undefined ? null : { at: 'value', message: `${JSON.stringify(bad)} cannot be a value of this fact` };
  }
  return fitsType(spec, value) ? null : { at: 'value', message: `${JSON.stringify(value)} cannot be a value of this fact` };
}

function fitsType(spec: FactSpec, value: unknown): boolean {
  if (value === null) return true;
  switch (spec.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string' && (!spec.values || spec.values.includes(value));
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
  }
}

function describeType(spec: FactSpec): string {
  return spec.values ? `a string, one of ${spec.values.join(', ')}` : `of type ${spec.type}`;
}
