// The one compiler from a policy to rules. Nothing is compiled for a disabled check. The whole policy is one
// engine rule, `any` of one condition per enabled check, per on_unknown other than ignore and per free rule,
// each child evaluated and carrying its own verdict: json-rules-engine spends most of a run on per-rule work
// (a result object, events, promise chains), and every rule ran on every request anyway. What each child
// decides (its verdict) is kept here beside the rule, not in it.

import type { FactCatalog } from '../engine/catalog.js';
import type { CheckOptions, CheckSpec, Condition, Plugin } from '../engine/plugin.js';
import { factPriority, PolicyRunner } from '../engine/run.js';
import type { Action, Mode, OnUnknown } from '../vocabulary.js';
import { type CompiledVerdict, compileVerdict } from './compile-verdict.js';
import type { PolicyProblem } from './errors.js';
import type { CheckedPolicy } from './load.js';
import { checkOptions } from './problems.js';
import { ruleId } from './rule-id.js';
import { anyOfRule } from './rules.js';
import type { CheckConfig, Exemption, ExemptionMatch, PolicyTest } from './types.js';

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

/** A free rule as answers name it. */
export interface EnabledRule {
  name: string;
  /** Its code in `warnings` when it names none, and its entry in `steps`: `rule_` and its name in snake_case. */
  id: string;
  /** The facts its conditions read: it ran on a request when one of them is known. */
  reads: readonly string[];
}

/** An exemption as answers name it. */
export interface EnabledExemption {
  name: string;
  /** Its entry in `steps` when it applied: `exemption_` and its name in snake_case. */
  id: string;
  /** The checks and free rules it exempts from; `all`: every one. */
  from: 'all' | ReadonlySet<string>;
}

/** What a fired rule tells `decide`. */
export interface Verdict {
  source: 'check' | 'rule' | 'unknown' | 'exemption';
  /** Check name, free-rule name or exemption name. */
  name: string;
  /** An exemption's: the checks and rules whose verdicts it sets aside. */
  exempts?: EnabledExemption['from'];
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
  /** The policy's text (what `revision` hashes). */
  source: string;
  description: string;
  defaultAction: Action;
  checks: readonly EnabledCheck[];
  /** The free rules, in policy order. */
  rules: readonly EnabledRule[];
  /** The exemptions, in policy order. */
  exemptions: readonly EnabledExemption[];
  /** The registry the policy was compiled against. */
  catalog: FactCatalog;
  /** Plugins with at least one enabled check, in registry order. */
  enabledPlugins: readonly Plugin[];
  options: Readonly<Record<string, CheckOptions>>;
  /** Conditions the policy decides by: one per exemption, per enabled check, per on_unknown other than ignore, per free rule. */
  ruleCount: number;
  runner: PolicyRunner;
  /** Engine rule name → the verdicts it carries, one per child of its `any`. */
  verdicts: ReadonlyMap<string, readonly Verdict[]>;
  /** Every fact the policy's conditions read, each once: what a replay asks of every event, whatever the engine skips. */
  reads: readonly string[];
  /** The verdict of /v1/intelligence, from the policy's `intelligence:` section. */
  verdict: CompiledVerdict;
  tests: readonly PolicyTest[];
  /** The compiler's warnings (warnings.ts), with their places. */
  warnings: readonly PolicyProblem[];
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

/** Builds the rules of a checked policy (load.ts's checkPolicy: within every limit, without problems). */
export function compilePolicy(checked: CheckedPolicy, catalog: FactCatalog): CompiledPolicy {
  const doc = checked.document;
  const checks = compileChecks(checked, catalog);
  const rules = new PolicyConditions();
  const exemptions = (doc.exemptions ?? []).map(enabledExemption);
  addExemptions(rules, doc.exemptions ?? [], exemptions);
  addCheckRules(rules, checks, catalog);
  addFreeRules(rules, checked, checks.length);
  const engineRules = rules.conditions.length > 0 ? [anyOfRule(POLICY_RULE, rules.conditions, (fact) => factPriority(catalog, fact))] : [];
  const intelligence = doc.intelligence ?? {};
  return {
    name: checked.name,
    file: checked.file,
    revision: checked.revision,
    source: checked.source,
    description: doc.description ?? '',
    defaultAction: doc.default_action ?? 'allow',
    checks: checks.map(({ condition: _c, options: _o, order: _n, ...check }) => check),
    rules: (doc.rules ?? []).map((rule) => ({ name: rule.name, id: ruleId(rule.name), reads: [...new Set(factsOf(rule.conditions))] })),
    exemptions,
    catalog,
    enabledPlugins: [...catalog.plugins.values()].filter((p) => checks.some((c) => c.plugin === p)),
    options: Object.fromEntries(checks.map((c) => [c.name, c.options])),
    ruleCount: rules.conditions.length,
    runner: new PolicyRunner(catalog, engineRules),
    verdicts: new Map([[POLICY_RULE, rules.verdicts]]),
    reads: [...new Set(rules.conditions.flatMap((c) => [...factsOf(c)]))],
    verdict: compileVerdict(intelligence, catalog),
    tests: doc.tests ?? [],
    warnings: checked.warnings,
  };
}

/** The enabled checks in policy order, with their options and conditions (the policy has no problems). */
function compileChecks(checked: CheckedPolicy, catalog: FactCatalog): CompiledCheck[] {
  const checks: CompiledCheck[] = [];
  for (const [checkName, config] of Object.entries(checked.document.checks ?? {})) {
    const plugin = catalog.checkOwner.get(checkName) as Plugin;
    const spec = plugin.checks[checkName] as CheckSpec;
    if (config.enabled === false) continue;
    const options = checkOptions(spec, config.options);
    const condition = typeof spec.when === 'function' ? spec.when(options) : spec.when;
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
    rules.add(
      { any: unknown },
      {
        source: 'unknown',
        name: check.name,
        action: check.onUnknown,
        code: unknownCode(check.name),
        kind: check.mode === 'hard' ? 'error' : 'warning',
        order: check.order,
      },
    );
  }
  const byPlugin = new Map<string, CompiledCheck[]>();
  for (const check of checks) byPlugin.set(check.plugin.id, [...(byPlugin.get(check.plugin.id) ?? []), check]);
  for (const group of byPlugin.values()) for (const check of group) rules.add(check.condition, checkVerdict(check));
}

/** The code a check's on_unknown answers with: its evidence was unknown, so what it would say is not. */
export function unknownCode(check: string): string {
  return `${check}_unknown`;
}

function checkVerdict(check: CompiledCheck): Verdict {
  return { source: 'check', name: check.name, action: check.action, code: check.code, kind: check.mode === 'hard' ? 'error' : 'warning', order: check.order };
}

function enabledExemption(exemption: Exemption): EnabledExemption {
  return { name: exemption.name, id: exemptionId(exemption.name), from: exemption.from === 'all' ? 'all' : new Set(exemption.from) };
}

/** `exemption_` and the exemption's name with hyphens as underscores: its entry in `steps`. */
export function exemptionId(name: string): string {
  return `exemption_${name.replaceAll('-', '_')}`;
}

/** The exemptions first (order 0: they carry no code), each a condition that holds for the sign-ups it covers. */
function addExemptions(rules: PolicyConditions, written: readonly Exemption[], exemptions: readonly EnabledExemption[]): void {
  written.forEach((exemption, i) => {
    const from = (exemptions[i] as EnabledExemption).from;
    rules.add(exemptionCondition(exemption.when), { source: 'exemption', name: exemption.name, action: 'none', exempts: from, order: 0 });
  });
}

/** Who an exemption covers, as one condition: each part given must hold. */
export function exemptionCondition(when: ExemptionMatch): Condition {
  const parts: Condition[] = [];
  if (when.domains) parts.push({ fact: 'domain', operator: 'inDomains', value: when.domains });
  if (when.addresses) {
    const addresses = when.addresses.map((a) => a.toLowerCase());
    parts.push({
      any: [
        { fact: 'email_lower', operator: 'in', value: addresses },
        { fact: 'base_email', operator: 'in', value: addresses },
      ],
    });
  }
  if (when.ips) {
    parts.push({
      any: [
        { fact: 'ipv4_address', operator: 'inNetworks', value: when.ips },
        { fact: 'ipv6_address', operator: 'inNetworks', value: when.ips },
      ],
    });
  }
  if (when.project_list) parts.push({ fact: 'on_exempt_list', operator: 'equal', value: true });
  if (when.conditions) parts.push(when.conditions);
  return parts.length === 1 ? (parts[0] as Condition) : { all: parts };
}

/** The policy's free rules, after its checks in order. */
function addFreeRules(rules: PolicyConditions, checked: CheckedPolicy, checkCount: number): void {
  for (const [i, rule] of (checked.document.rules ?? []).entries()) {
    // A rule that names no code still names itself, so an action it changes is never unexplained.
    const code = rule.error ?? rule.warning ?? ruleId(rule.name);
    rules.add(rule.conditions, {
      source: 'rule',
      name: rule.name,
      action: rule.action,
      code,
      kind: rule.error ? 'error' : 'warning',
      order: checkCount + i + 1,
    });
  }
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
