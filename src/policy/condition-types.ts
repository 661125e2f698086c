// Conditions checked against the facts they name: unknown facts, and operators or values that do not
// fit a fact's declared type. Works on our own condition form, before any rule is built, and on a
// condition the schema refused too (its well-formed parts are checked), so one pass reports everything.

import { echoInput } from '../echoed-input.js';
import type { FactCatalog } from '../engine/catalog.js';
import { domainEntry, networkEntry } from '../engine/operators.js';
import type { FactSpec } from '../engine/plugin.js';
import { OPERATORS } from '../vocabulary.js';
import { didYouMean } from './did-you-mean.js';

const NUMERIC_OPERATORS = new Set(['lessThan', 'lessThanInclusive', 'greaterThan', 'greaterThanInclusive']);
const LIST_OPERATORS = new Set(['in', 'notIn']);
const ARRAY_OPERATORS = new Set(['contains', 'doesNotContain']);

export interface ConditionProblem {
  path: (string | number)[];
  /** Written when the problem is reported: a did-you-mean looks at every fact. */
  message(): string;
}

const KNOWN_OPERATORS: ReadonlySet<string> = new Set(OPERATORS);

/** Unknown facts (with the closest known name) and operators that do not fit a fact's type. */
export function conditionProblems(condition: unknown, catalog: FactCatalog, path: (string | number)[] = []): ConditionProblem[] {
  if (typeof condition !== 'object' || condition === null) return [];
  const c = condition as Record<string, unknown>;
  if (Array.isArray(c.all)) return c.all.flatMap((child, i) => conditionProblems(child, catalog, [...path, 'all', i]));
  if (Array.isArray(c.any)) return c.any.flatMap((child, i) => conditionProblems(child, catalog, [...path, 'any', i]));
  if ('not' in c) return conditionProblems(c.not, catalog, [...path, 'not']);
  if (typeof c.fact !== 'string') return [];
  const owner = catalog.owner.get(c.fact);
  if (!owner) {
    const fact = c.fact;
    const message = () => `unknown fact "${echoInput(fact)}"${didYouMean(fact, catalog.owner.keys()) || ' (`email-trust facts` lists every fact)'}`;
    return [{ path: [...path, 'fact'], message }];
  }
  // An unknown operator is the schema's to report (with its own did-you-mean).
  if (typeof c.operator !== 'string' || !KNOWN_OPERATORS.has(c.operator)) return [];
  const spec = owner.facts[c.fact] as FactSpec;
  const misfit = operatorMisfit(c.operator, spec, c.value);
  return misfit ? [{ path: [...path, misfit.at], message: () => `${misfit.message} (fact ${c.fact} is ${describeType(spec)})` }] : [];
}

function operatorMisfit(operator: string, spec: FactSpec, value: unknown): { at: 'operator' | 'value'; message: string } | null {
  if (NUMERIC_OPERATORS.has(operator)) {
    if (spec.type !== 'integer' && spec.type !== 'number') return { at: 'operator', message: `operator ${operator} needs a numeric fact` };
    return typeof value === 'number' ? null : { at: 'value', message: `operator ${operator} needs a number value` };
  }
  if (ARRAY_OPERATORS.has(operator)) {
    return spec.type === 'array' ? null : { at: 'operator', message: `operator ${operator} needs an array fact` };
  }
  if (operator === 'inDomains' || operator === 'inNetworks') {
    if (spec.type !== 'string') return { at: 'operator', message: `operator ${operator} needs a string fact (a domain or an IP address)` };
    if (!Array.isArray(value)) return { at: 'value', message: `operator ${operator} needs a list value` };
    const entry = operator === 'inDomains' ? domainEntry : networkEntry;
    const bad = value.find((v) => typeof v !== 'string' || entry(v) === null);
    const what = operator === 'inDomains' ? 'a domain' : 'an IP address or a network such as 203.0.113.0/24';
    return bad === undefined ? null : { at: 'value', message: `${JSON.stringify(bad)} is not ${what}` };
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
