// The intelligence verdict: `parent_rules` (a policy's `intelligence:` section, or a sandbox request's
// custom_policy) compiled to rules over boolean facts. A field is a fact's name (`is_free_provider_domain`),
// or the interface's name for one (`domain_free`): one vocabulary, with the interface's names as aliases.
import { createHash } from 'node:crypto';
import { echoInput } from '../echoed-input.js';
import type { FactCatalog } from '../engine/catalog.js';
import type { Condition } from '../engine/plugin.js';
import { type FiredRule, factPriority, PolicyRunner } from '../engine/run.js';
import type { VerdictAction } from '../vocabulary.js';
import { unknownNameHint } from './did-you-mean.js';
import { anyOfRule, ruleOf } from './rules.js';
import type { IntelligencePolicy, ParentRule } from './types.js';

/** The interface's custom_policy / parent_rules field names → the fact each is an alias of (docs/policies.md's table). */
export const VERDICT_FIELDS: Readonly<Record<string, string>> = {
  domain_disposable: 'is_disposable_domain',
  domain_free: 'is_free_provider_domain',
  domain_education: 'is_education_domain',
  domain_government: 'is_government_domain',
  domain_known_abuse: 'is_known_abuse_domain',
  domain_spam_trap: 'is_spam_trap_domain',
  email_deliverable: 'email_deliverable',
  email_role_based: 'is_role_based_domain',
  email_has_typo: 'has_typo_mismatch',
  email_fraud_pattern: 'has_fraud_pattern',
  email_valid_format: 'valid_address_format',
  email_plus_addressing: 'has_plus_addressing',
  email_internationalized: 'is_internationalized',
  email_mixed_script: 'has_mixed_script',
  domain_valid_tld: 'has_valid_tld',
  ip_multiple_emails: 'has_multiple_emails_in_ip',
  // What verify's default policy blocks beyond the fields above, so that the default verdict can block it too.
  email_local_empty: 'local_is_empty',
  email_within_length_limits: 'within_length_limits',
  email_catch_all_wildcard: 'has_catch_all_wildcard',
  domain_ipv4: 'is_ipv4',
  domain_ipv6: 'is_ipv6',
  domain_single_label: 'is_single_label',
  domain_only_numeric: 'is_only_numeric',
  email_high_risk: 'is_high_risk',
  // The request's IP (intelligence: the fingerprint's), as the response's `ip` object names them, so that a
  // policy blocking VPNs, Tor exits or datacenters in verify can block them in its verdict too.
  ip_vpn: 'is_vpn',
  ip_tor: 'is_tor',
  ip_datacenter: 'is_datacenter',
};

export interface CompiledVerdict {
  /** Content hash of the parent rules (names a custom_policy in stored decisions). */
  revision: string;
  ruleCount: number;
  stopOnBlock: boolean;
  runner: PolicyRunner;
  /** Rule name → the action its parent rule takes. */
  actions: ReadonlyMap<string, VerdictAction>;
  /** The parent rules as written, in order. */
  parents: readonly ParentRule[];
}

export interface VerdictDecision {
  action: VerdictAction;
  /** Indexes of the parent rules that matched, in order. */
  matched: number[];
  /** Index of the parent rule that decided: the first matched one whose action is the verdict; null when none matched. */
  decidedBy: number | null;
}

export interface VerdictProblem {
  /** Path inside the intelligence section / custom_policy, e.g. ['parent_rules', 0, 'field']. */
  path: (string | number)[];
  message: string;
}

/** Fields that can be used with this registry: the aliases whose facts exist, then every boolean fact by its name. */
export function availableVerdictFields(catalog: FactCatalog): string[] {
  const aliases = Object.keys(VERDICT_FIELDS).filter((field) => catalog.owner.has(VERDICT_FIELDS[field] as string));
  return [...aliases, ...booleanFacts(catalog)];
}

/** The fact a field reads: an alias's fact, or the boolean fact of that name; undefined for neither. */
export function verdictFact(field: string, catalog: FactCatalog): string | undefined {
  const fact = Object.hasOwn(VERDICT_FIELDS, field) ? (VERDICT_FIELDS[field] as string) : field;
  return catalog.owner.get(fact)?.facts[fact]?.type === 'boolean' ? fact : undefined;
}

function booleanFacts(catalog: FactCatalog): string[] {
  return [...catalog.owner].flatMap(([fact, plugin]) => (plugin.facts[fact]?.type === 'boolean' ? [fact] : []));
}

/** Problems of a verdict policy; empty when it compiles. Rules the schema refused are checked as far as they go. */
export function verdictProblems(spec: IntelligencePolicy, catalog: FactCatalog): VerdictProblem[] {
  const available = availableVerdictFields(catalog);
  const rules: unknown[] = Array.isArray(spec.parent_rules) ? spec.parent_rules : [];
  return rules.flatMap((rule, i) => {
    const field = (rule as Partial<ParentRule> | null)?.field;
    if (typeof field !== 'string' || verdictFact(field, catalog) !== undefined) return [];
    const type = catalog.owner.get(field)?.facts[field]?.type;
    const message = type
      ? `field "${field}" is a fact of type ${type}, not a boolean: a parent rule compares a field with true or false`
      : `unknown field "${echoInput(field)}"${unknownNameHint(field, available)}`;
    return [{ path: ['parent_rules', i, 'field'], message }];
  });
}

/** Compiles a verdict policy whose problems were checked (verdictProblems is empty). */
export function compileVerdict(spec: IntelligencePolicy, catalog: FactCatalog): CompiledVerdict {
  const parents = spec.parent_rules ?? [];
  const stopOnBlock = spec.stop_on_block === true;
  const priorityOf = (name: string) => factPriority(catalog, name);
  // With stop_on_block, rules run one at a time in order (falling priorities), so the first block stops the
  // rest. Without it every parent rule is evaluated anyway: one engine rule whose `any` holds them all (the
  // run reports which held as its children), a run's bookkeeping once rather than once per parent rule.
  const condition = (parent: ParentRule) => parentCondition(parent, verdictFact(parent.field, catalog) as string);
  const rules = stopOnBlock
    ? parents.map((parent, i) => ruleOf(ruleName(i), condition(parent), priorityOf, parents.length - i))
    : parents.length > 0
      ? [anyOfRule(ALL_PARENT_RULES, parents.map(condition), priorityOf)]
      : [];
  const actions = new Map(parents.map((parent, i) => [ruleName(i), parent.action]));
  // stop_on_block: no lower rule is evaluated once a block rule has fired.
  const halts = stopOnBlock ? (rule: string) => actions.get(rule) === 'block' : undefined;
  return {
    revision: createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16),
    ruleCount: parents.length,
    stopOnBlock,
    runner: new PolicyRunner(catalog, rules, halts),
    actions,
    parents,
  };
}

/** block if a block rule matched, else allow if an allow rule matched, else ignore. */
export function decideVerdict(verdict: CompiledVerdict, fired: readonly FiredRule[]): VerdictDecision {
  // A loop, not flatMap: the one rule of a verdict without stop_on_block has a child per parent rule (every request).
  const matched: number[] = [];
  for (const rule of fired) {
    if (rule.name !== ALL_PARENT_RULES) matched.push(Number(rule.name.slice('parent_rules['.length, -1)));
    else for (let i = 0; i < rule.children.length; i++) if (rule.children[i]) matched.push(i);
  }
  matched.sort((a, b) => a - b);
  const actions = matched.map((i) => verdict.parents[i]?.action);
  const action = actions.includes('block') ? 'block' : actions.includes('allow') ? 'allow' : 'ignore';
  const decidedBy = matched.find((i) => verdict.parents[i]?.action === action) ?? null;
  return { action, matched, decidedBy };
}

/** The one engine rule of a verdict without stop_on_block: its children are the parent rules, in order. */
const ALL_PARENT_RULES = 'parent_rules';

function ruleName(index: number): string {
  return `parent_rules[${index}]`;
}

/** A parent rule's test of one field; an unknown fact (null) never matches, whatever the operator. */
function parentCondition(parent: ParentRule, fact: string): Condition {
  const operator = parent.operator === '==' ? 'equal' : 'notEqual';
  return {
    all: [
      { fact, operator: 'notEqual', value: null },
      { fact, operator, value: parent.target.bool },
    ],
  };
}
