// The one compiler from a policy to rules. Nothing is compiled for a disabled check. The whole policy is one
// engine rule, `any` of one condition per enabled check, per on_unknown other than ignore and per free rule,
// each child evaluated and carrying its own verdict: json-rules-engine spends most of a run on per-rule work
// (a result object, events, promise chains), and every rule ran on every request anyway. What each child
// decides (its verdict) is kept here beside the rule, not in it.

import type { FactCatalog } from '../engine/catalog.js';
import type { CheckOptions, CheckSpec, Condition, Plugin } from '../engine/plugin.js';
import { factPriority, PolicyRunner } from '../engine/run.js';
import { describeSchemaErrors, validatorFor } from '../schemas.js';
import type { Action, Mode, OnUnknown } from '../vocabulary.js';
import { type CompiledVerdict, compileVerdict, verdictProblems } from './compile-verdict.js';
import { conditionProblems } from './condition-types.js';
import { PolicyError, type PolicyProblem, sortProblems } from './errors.js';
import type { LoadedPolicy } from './load.js';
import { anyOfRule } from './rules.js';
import type { CheckConfig, PolicyTest } from './types.js';

export interface EnabledCheck {
  name: string;
  plugin: Plugin;
  mode: Mode;
  action: Action;
  code?: string;
  checkedType?: string;
  onUnknown: OnUnknown;
  /** The facts its condition reads: the check could run on a request when one of them is known. */
  reads: readonly string[];
}

/** What a fired rule tells `decide`. */
export interface Verdict {
  source: 'check' | 'rule' | 'unknown';
  /** Check name or free-rule name. */
  name: string;
  action: Action;
  code?: string;
  kind?: 'error' | 'warning';
  /** Position in the policy, so errors and warnings keep the policy's order. */
  order: number;
}

export interface CompiledPolicy {
  name: string;
  file: string;
  revision: string;
  description: string;
  defaultAction: Action;
  checks: readonly EnabledCheck[];
  /** The registry the policy was compiled against. */
  catalog: FactCatalog;
  /** Plugins with at least one enabled check, in registry order. */
  enabledPlugins: readonly Plugin[];
  options: Readonly<Record<string, CheckOptions>>;
  /** Conditions the policy decides by: one per enabled check, per on_unknown other than ignore, per free rule. */
  ruleCount: number;
  runner: PolicyRunner;
  /** Engine rule name → the verdicts it carries, one per child of its `any`. */
  verdicts: ReadonlyMap<string, readonly Verdict[]>;
  /** The policy's conditions in our own form, one per verdict of its one rule, for deciding without the engine (decide-eagerly.ts). */
  conditions: { rule: string; each: readonly Condition[]; facts: readonly string[] };
  /** The verdict of /v1/intelligence, from the policy's `intelligence:` section. */
  verdict: CompiledVerdict;
  tests: readonly PolicyTest[];
}

/** An enabled check with what its rule needs. */
interface CompiledCheck extends EnabledCheck {
  condition: Condition;
  options: CheckOptions;
  order: number;
}

/** The name of the policy's one engine rule. */
const POLICY_RULE = 'policy';

/** The policy's rule in the making: its conditions, each with the verdict it carries when it holds. */
class PolicyConditions {
  readonly conditions: Condition[] = [];
  readonly verdicts: Verdict[] = [];

  add(condition: Condition, verdict: Verdict): void {
    this.conditions.push(condition);
    this.verdicts.push(verdict);
  }
}

export function compilePolicy(name: string, loaded: LoadedPolicy, catalog: FactCatalog): CompiledPolicy {
  const doc = loaded.document;
  const problems: PolicyProblem[] = [];
  const checks = compileChecks(loaded, catalog, problems);
  const rules = new PolicyConditions();
  addCheckRules(rules, checks, catalog);
  addFreeRules(rules, loaded, catalog, problems, checks.length);
  const engineRules = rules.conditions.length > 0 ? [anyOfRule(POLICY_RULE, rules.conditions, (fact) => factPriority(catalog, fact))] : [];
  const intelligence = doc.intelligence ?? {};
  for (const p of verdictProblems(intelligence, catalog)) problems.push(loaded.problem(['intelligence', ...p.path], p.message));
  if (problems.length > 0) throw new PolicyError(sortProblems(problems));
  return {
    name,
    file: loaded.file,
    revision: loaded.revision,
    description: doc.description ?? '',
    defaultAction: doc.default_action ?? 'allow',
    checks: checks.map(({ condition: _c, options: _o, order: _n, ...check }) => check),
    catalog,
    enabledPlugins: [...catalog.plugins.values()].filter((p) => checks.some((c) => c.plugin === p)),
    options: Object.fromEntries(checks.map((c) => [c.name, c.options])),
    ruleCount: rules.conditions.length,
    runner: new PolicyRunner(catalog, engineRules),
    verdicts: new Map([[POLICY_RULE, rules.verdicts]]),
    conditions: { rule: POLICY_RULE, each: rules.conditions, facts: [...new Set(rules.conditions.flatMap((c) => [...factsOf(c)]))] },
    verdict: compileVerdict(intelligence, catalog),
    tests: doc.tests ?? [],
  };
}

/** The enabled checks in policy order, their options validated and conditions built; problems collected. */
function compileChecks(loaded: LoadedPolicy, catalog: FactCatalog, problems: PolicyProblem[]): CompiledCheck[] {
  const checks: CompiledCheck[] = [];
  for (const [checkName, config] of Object.entries(loaded.document.checks ?? {})) {
    const here = ['checks', checkName];
    const plugin = catalog.checkOwner.get(checkName);
    if (!plugin) {
      const known = [...catalog.checkOwner.keys()].sort().join(', ');
      problems.push(loaded.problem(here, `unknown check "${checkName}"; known checks: ${known}`));
      continue;
    }
    const spec = plugin.checks[checkName] as CheckSpec;
    const options = validateOptions(checkName, spec, config.options, here, loaded, problems);
    if (config.enabled === false || options === null) continue;
    const condition = typeof spec.when === 'function' ? spec.when(options) : spec.when;
    for (const problem of conditionProblems(condition, catalog)) {
      problems.push(loaded.problem(here, `check ${checkName} of plugin ${plugin.id} is broken: ${problem.message}`));
    }
    checks.push({ ...enabledCheck(checkName, plugin, spec, config, condition), condition, options, order: checks.length + 1 });
  }
  return checks;
}

function enabledCheck(name: string, plugin: Plugin, spec: CheckSpec, config: CheckConfig, condition: Condition): EnabledCheck {
  const mode = config.mode ?? 'hard';
  return {
    name,
    plugin,
    mode,
    action: config.action ?? (mode === 'hard' ? 'block' : 'allow'),
    code: spec.code,
    checkedType: spec.checkedType,
    onUnknown: config.on_unknown ?? 'ignore',
    reads: [...new Set(factsOf(condition))],
  };
}

/**
 * A condition per check whose on_unknown is not ignore, then the enabled checks grouped by plugin (the order
 * in which the engine asks for facts, so the order plugins run in).
 */
function addCheckRules(rules: PolicyConditions, checks: readonly CompiledCheck[], catalog: FactCatalog): void {
  for (const check of checks) {
    if (check.onUnknown === 'ignore') continue;
    const unknown = check.reads.map((fact) => ({ fact, operator: 'in' as const, value: [null, ...unknownValuesOf(catalog, fact)] }));
    rules.add({ any: unknown }, { source: 'unknown', name: check.name, action: check.onUnknown, order: check.order });
  }
  const byPlugin = new Map<string, CompiledCheck[]>();
  for (const check of checks) byPlugin.set(check.plugin.id, [...(byPlugin.get(check.plugin.id) ?? []), check]);
  for (const group of byPlugin.values()) for (const check of group) rules.add(check.condition, checkVerdict(check));
}

function checkVerdict(check: CompiledCheck): Verdict {
  return { source: 'check', name: check.name, action: check.action, code: check.code, kind: check.mode === 'hard' ? 'error' : 'warning', order: check.order };
}

/** The policy's free rules, after its checks in order. */
function addFreeRules(rules: PolicyConditions, loaded: LoadedPolicy, catalog: FactCatalog, problems: PolicyProblem[], checkCount: number): void {
  const free = loaded.document.rules ?? [];
  for (const [i, rule] of free.entries()) {
    const here = ['rules', i];
    if (free.findIndex((r) => r.name === rule.name) !== i) problems.push(loaded.problem([...here, 'name'], `rule name "${rule.name}" is used twice`));
    for (const problem of conditionProblems(rule.conditions, catalog)) {
      problems.push(loaded.problem([...here, 'conditions', ...problem.path], problem.message));
    }
    const code = rule.error ?? rule.warning;
    const verdict: Verdict = { source: 'rule', name: rule.name, action: rule.action, order: checkCount + i + 1 };
    rules.add(rule.conditions, code ? { ...verdict, code, kind: rule.error ? 'error' : 'warning' } : verdict);
  }
}

function validateOptions(
  checkName: string,
  spec: CheckSpec,
  given: Record<string, unknown> | undefined,
  here: (string | number)[],
  loaded: LoadedPolicy,
  problems: PolicyProblem[],
): CheckOptions | null {
  const merged = { ...spec.defaults, ...given };
  if (!spec.options) {
    if (given && Object.keys(given).length > 0) {
      problems.push(loaded.problem([...here, 'options'], `check ${checkName} takes no options`));
      return null;
    }
    return merged;
  }
  const validate = validatorFor(spec.options);
  if (validate(merged)) return merged;
  for (const p of describeSchemaErrors(validate.errors ?? [])) problems.push(loaded.problem([...here, 'options', ...p.path], p.message));
  return null;
}

function unknownValuesOf(catalog: FactCatalog, fact: string): readonly string[] {
  return catalog.owner.get(fact)?.facts[fact]?.unknownValues ?? [];
}

function* factsOf(condition: Condition): Generator<string> {
  if ('all' in condition) for (const c of condition.all) yield* factsOf(c);
  else if ('any' in condition) for (const c of condition.any) yield* factsOf(c);
  else if ('not' in condition) yield* factsOf(condition.not);
  else yield condition.fact;
}
