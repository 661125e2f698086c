// json-rules-engine evaluates each condition by awaiting Promise.all([the compared value, the fact]),
// destructuring the pair through Babel's iterator helper and building a debug record it then drops: a
// promise, an array and two objects more than the comparison needs, for each of the ~40 conditions of a
// run. Our conditions compare a fact with a plain value (the compiler emits no fact references), so this
// module installs an evaluate() that awaits the fact alone and answers the same record; a condition whose
// value is a fact reference, or anything unexpected, still goes through the upstream method. Our own
// almanac (run.ts) answers the fact and the comparison in one promise (factThen).
// test/engine/condition-evaluation.test.ts fails if an upgrade moves or changes what is replaced here.
import { createRequire } from 'node:module';

interface Operator {
  evaluate(factValue: unknown, jsonValue: unknown): boolean;
}

interface EvaluationResult {
  result: boolean;
  leftHandSideValue: unknown;
  rightHandSideValue: unknown;
  operator: string;
}

interface ConditionInstance {
  fact: string;
  operator: string;
  value: unknown;
  params?: unknown;
  path?: string;
  isBooleanOperator(): boolean;
  evaluate(almanac: AlmanacLike, operatorMap: Map<string, Operator>): Promise<EvaluationResult>;
}

interface AlmanacLike {
  factValue(fact: string, params?: unknown, path?: string): Promise<unknown>;
  /** run.ts's almanac: the fact and what follows from it in one promise. */
  factThen?<T>(fact: string, then: (value: unknown) => T): Promise<T>;
}

interface ConditionModule {
  default: { prototype: ConditionInstance };
}

const conditionModule = createRequire(import.meta.url)('json-rules-engine/dist/condition.js') as ConditionModule;
/** The upstream method, for the conditions this one leaves to it. */
export const upstreamEvaluate = conditionModule.default.prototype.evaluate;

const isFactReference = (value: unknown) => typeof value === 'object' && value !== null && Object.hasOwn(value, 'fact');

/** Marks the installed method, so a test can tell that the engine's conditions still use it. */
export const DIRECT_EVALUATE = Symbol('email-trust condition evaluate');

/** A condition's comparison, made on its first run and kept on the instance (a pooled engine's conditions run again and again). */
const COMPARE = Symbol('email-trust comparison');

interface Comparison {
  /** The operator it was made with: an engine given other operators makes another. */
  op: Operator;
  compare(fact: unknown): EvaluationResult;
}

export function directEvaluate(
  this: ConditionInstance & { [COMPARE]?: Comparison },
  almanac: AlmanacLike,
  operatorMap: Map<string, Operator>,
): Promise<EvaluationResult> {
  const op = almanac && operatorMap ? operatorMap.get(this.operator) : undefined;
  if (!op || isFactReference(this.value) || this.isBooleanOperator()) return upstreamEvaluate.call(this, almanac, operatorMap);
  const { operator, value } = this;
  // run.ts's almanac reads the fact and compares in one promise (its conditions carry no params or path). Its
  // engines run one request at a time and the engine reads the record as soon as it is made, so each
  // condition fills one record of its own rather than a new one per run.
  if (almanac.factThen) {
    let comparison = this[COMPARE];
    if (comparison?.op !== op) {
      const record: EvaluationResult = { result: false, leftHandSideValue: null, rightHandSideValue: value, operator };
      comparison = {
        op,
        compare: (fact) => {
          record.result = op.evaluate(fact, value);
          record.leftHandSideValue = fact;
          return record;
        },
      };
      this[COMPARE] = comparison;
    }
    return almanac.factThen(this.fact, comparison.compare);
  }
  return almanac
    .factValue(this.fact, this.params, this.path)
    .then((fact) => ({ result: op.evaluate(fact, value), leftHandSideValue: fact, rightHandSideValue: value, operator }));
}

(directEvaluate as unknown as Record<symbol, boolean>)[DIRECT_EVALUATE] = true;

conditionModule.default.prototype.evaluate = directEvaluate;
