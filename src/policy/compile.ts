// The one compiler from a policy to json-rules-engine rules. This module is the only place that
// knows the rule engine's rule format. Nothing is compiled for a disabled check. The enabled checks of
// one plugin share one rule, `any` of their conditions, each child evaluated and carrying its own
// verdict: json-rules-engine spends most of a run on per-rule work (cloning the rule's conditions into
// its result, emitting events), so 23 checks in 8 rules cost about half of 23 rules. A free rule and an
// on_unknown rule are one rule each.
import type { RuleProperties, RuleResult, TopLevelCondition } from 'json-rules-engine';
import type { CheckOptions, CheckSpec, Condition, Plugin } from '../engine/plugin.js';
import { type FactCatalog, PolicyRunner } from '../engine/run.js';
import { describeSchemaErrors, validatorFor } from '../schemas.js';
import { type CompiledVerdict, compileVerdict, verdictProblems } from './compile-verdict.js';
import { conditionProblems } from './condition-types.js';
import { PolicyError, type PolicyProblem, sortProblems } from './errors.js';
import type { LoadedPolicy } from './load.js';
import type { Action, Mode, PolicyTest } from './types.js';

export interface EnabledCheck {
  name: string;
  plugin: Plugin;
  mode: Mode;
  action: Action;
  code?: string;
  checkedType?: string;
  onUnknown: 'allow' | 'block' | 'ignore';
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
  /** Plugins with at least one enabled check, in registry order. */
  enabledPlugins: readonly Plugin[];
  options: Readonly<Record<string, CheckOptions>>;
  ruleCount: number;
  runner: PolicyRunner;
  /**
   * Rule name → the verdicts it carries (one, or one per child of a plugin's rule). Kept here rather
   * than in the rules' events: json-rules-engine copies a fired rule's event into every result.
   */
  verdicts: ReadonlyMap<string, readonly Verdict[]>;
  /** The verdict of /v1/intelligence, from the policy's `intelligence:` section. */
  verdict: CompiledVerdict;
  tests: readonly PolicyTest[];
}

/** Check name → owning plugin, for a registry. */
const checkIndexes = new WeakMap<FactCatalog, Map<string, Plugin>>();
export function checkOwners(catalog: FactCatalog): Map<string, Plugin> {
  let index = checkIndexes.get(catalog);
  if (!index) {
    index = new Map();
    for (const plugin of catalog.plugins.values()) {
      for (const name of Object.keys(plugin.checks)) {
        const other = index.get(name);
        if (other) throw new Error(`check ${name} is offered by both ${other.id} and ${plugin.id}`);
        index.set(name, plugin);
      }
    }
    checkIndexes.set(catalog, index);
  }
  return index;
}

export function compilePolicy(name: string, loaded: LoadedPolicy, catalog: FactCatalog): CompiledPolicy {
  const doc = loaded.document;
  const owners = checkOwners(catalog);
  const problems: PolicyProblem[] = [];
  const rules: RuleProperties[] = [];
  const groups = new Map<string, { conditions: Condition[]; verdicts: Verdict[] }>();
  const checks: EnabledCheck[] = [];
  const options: Record<string, CheckOptions> = {};
  let order = 0;

  for (const [checkName, config] of Object.entries(doc.checks ?? {})) {
    const here = ['checks', checkName];
    const plugin = owners.get(checkName);
    if (!plugin) {
      problems.push(loaded.problem(here, `unknown check "${checkName}"; known checks: ${[...owners.keys()].sort().join(', ')}`));
      continue;
    }
    const spec = plugin.checks[checkName] as CheckSpec;
    const checkOptions = validateOptions(checkName, spec, config.options, here, loaded, problems);
    if (config.enabled === false || checkOptions === null) continue;
    const mode = config.mode ?? 'hard';
    const check: EnabledCheck = {
      name: checkName,
      plugin,
      mode,
      action: config.action ?? (mode === 'hard' ? 'block' : 'allow'),
      code: spec.code,
      checkedType: spec.checkedType,
      onUnknown: config.on_unknown ?? 'ignore',
    };
    const condition = typeof spec.when === 'function' ? spec.when(checkOptions) : spec.when;
    for (const problem of conditionProblems(condition, catalog)) {
      problems.push(loaded.problem(here, `check ${checkName} of plugin ${plugin.id} is broken: ${problem.message}`));
    }
    checks.push(check);
    options[checkName] = checkOptions;
    order += 1;
    const group = groups.get(plugin.id) ?? { conditions: [], verdicts: [] };
    group.conditions.push(condition);
    group.verdicts.push({ source: 'check', name: checkName, action: check.action, code: spec.code, kind: mode === 'hard' ? 'error' : 'warning', order });
    groups.set(plugin.id, group);
    if (check.onUnknown !== 'ignore') {
      const unknown = [...new Set(factsOf(condition))].map((fact) => ({ fact, operator: 'in', value: [null, ...unknownValuesOf(catalog, fact)] }));
      rules.push(rule(`unknown:${checkName}`, { any: unknown }, { source: 'unknown', name: checkName, action: check.onUnknown, order }));
    }
  }

  for (const [pluginId, group] of groups) rules.push(checksRule(pluginId, group.conditions, group.verdicts));

  for (const [i, free] of (doc.rules ?? []).entries()) {
    const here = ['rules', i];
    if ((doc.rules ?? []).findIndex((r) => r.name === free.name) !== i) {
      problems.push(loaded.problem([...here, 'name'], `rule name "${free.name}" is used twice`));
    }
    for (const problem of conditionProblems(free.conditions, catalog)) {
      problems.push(loaded.problem([...here, 'conditions', ...problem.path], problem.message));
    }
    order += 1;
    const code = free.error ?? free.warning;
    rules.push(
      rule(`rule:${free.name}`, toRuleCondition(free.conditions as Condition), {
        source: 'rule',
        name: free.name,
        action: free.action,
        ...(code ? { code, kind: free.error ? 'error' : 'warning' } : {}),
        order,
      }),
    );
  }

  const intelligence = doc.intelligence ?? {};
  for (const p of verdictProblems(intelligence, catalog)) problems.push(loaded.problem(['intelligence', ...p.path], p.message));

  if (problems.length > 0) throw new PolicyError(sortProblems(problems));
  const enabledPlugins = [...catalog.plugins.values()].filter((p) => checks.some((c) => c.plugin === p));
  return {
    name,
    file: loaded.file,
    revision: loaded.revision,
    description: doc.description ?? '',
    defaultAction: doc.default_action ?? 'allow',
    checks,
    enabledPlugins,
    options,
    ruleCount: rules.length,
    runner: new PolicyRunner(catalog, rules),
    verdicts: new Map(rules.map((r) => [r.name as string, verdictsOf.get(r) ?? []])),
    verdict: compileVerdict(intelligence, catalog),
    tests: doc.tests ?? [],
  };
}

/** The verdicts of the rules that fired in one run: of a plugin's rule, those of the checks that fired. */
export function firedVerdicts(policy: CompiledPolicy, results: readonly RuleResult[]): Verdict[] {
  const fired: Verdict[] = [];
  for (const result of results) {
    if (result.result !== true) continue;
    const verdicts = policy.verdicts.get(result.name) ?? [];
    if (verdicts.length === 1) {
      fired.push(verdicts[0] as Verdict);
      continue;
    }
    const children = (result.conditions as { any: Array<{ result?: boolean }> }).any;
    verdicts.forEach((verdict, i) => {
      if (children[i]?.result === true) fired.push(verdict);
    });
  }
  return fired;
}

/** The verdicts each compiled rule carries (see CompiledPolicy.verdicts). */
const verdictsOf = new WeakMap<RuleProperties, Verdict[]>();

function rule(name: string, conditions: TopLevelCondition, verdict: Verdict): RuleProperties {
  const built: RuleProperties = { name, conditions, event: { type: verdict.source } };
  verdictsOf.set(built, [verdict]);
  return built;
}

/** One rule for the enabled checks of a plugin; each child is evaluated (one priority) and its result kept. */
function checksRule(pluginId: string, conditions: Condition[], verdicts: Verdict[]): RuleProperties {
  const [only] = verdicts;
  if (conditions.length === 1 && only) return rule(`check:${only.name}`, toRuleCondition(conditions[0] as Condition), only);
  const built: RuleProperties = {
    name: `checks:${pluginId}`,
    conditions: { any: conditions.map((c) => ({ ...c, priority: 1 })) } as TopLevelCondition,
    event: { type: 'checks' },
  };
  verdictsOf.set(built, verdicts);
  return built;
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
  if (!validate(merged)) {
    for (const p of describeSchemaErrors(validate.errors ?? [])) {
      problems.push(loaded.problem([...here, 'options', ...p.path], p.message));
    }
    return null;
  }
  return merged;
}

function unknownValuesOf(catalog: FactCatalog, fact: string): readonly string[] {
  return catalog.owner.get(fact)?.facts[fact]?.unknownValues ?? [];
}

function toRuleCondition(condition: Condition): TopLevelCondition {
  if ('all' in condition || 'any' in condition || 'not' in condition) return condition as TopLevelCondition;
  return { all: [condition] } as TopLevelCondition;
}

function* factsOf(condition: Condition): Generator<string> {
  if ('all' in condition) for (const c of condition.all) yield* factsOf(c);
  else if ('any' in condition) for (const c of condition.any) yield* factsOf(c);
  else if ('not' in condition) yield* factsOf(condition.not);
  else yield condition.fact;
}
