// The intelligence verdict: `parent_rules` (a policy's `intelligence:` section, or a sandbox request's
// custom_policy) compiled to json-rules-engine rules over an allow-listed set of fields, each the name of
// a fact. Like compile.ts, this module knows the rule engine's rule format.
import { createHash } from 'node:crypto';
import type { Event, RuleProperties, RuleResult } from 'json-rules-engine';
import { type FactCatalog, PolicyRunner } from '../engine/run.js';
import type { IntelligencePolicy, ParentRule } from './types.js';

/** custom_policy / parent_rules field → the fact it reads. A field whose fact is not registered is refused. */
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
};

export type VerdictAction = 'allow' | 'block' | 'ignore';

export interface CompiledVerdict {
  /** Content hash of the parent rules (names a custom_policy in stored decisions). */
  revision: string;
  ruleCount: number;
  stopOnBlock: boolean;
  runner: PolicyRunner;
  /** Stops evaluation at the first block when stop_on_block is set. */
  halts(event: Event): boolean;
}

export interface VerdictProblem {
  /** Path inside the intelligence section / custom_policy, e.g. ['parent_rules', 0, 'field']. */
  path: (string | number)[];
  message: string;
}

/** Fields that can be used with this registry (their facts exist). */
export function availableVerdictFields(catalog: FactCatalog): string[] {
  return Object.keys(VERDICT_FIELDS).filter((field) => catalog.owner.has(VERDICT_FIELDS[field] as string));
}

/** Problems of a verdict policy; empty when it compiles. */
export function verdictProblems(spec: IntelligencePolicy, catalog: FactCatalog): VerdictProblem[] {
  const available = availableVerdictFields(catalog);
  return (spec.parent_rules ?? []).flatMap((rule, i) =>
    available.includes(rule.field)
      ? []
      : [{ path: ['parent_rules', i, 'field'], message: `unknown field "${rule.field}"; known fields: ${available.join(', ')}` }],
  );
}

/** Compiles a verdict policy whose problems were checked (verdictProblems is empty). */
export function compileVerdict(spec: IntelligencePolicy, catalog: FactCatalog): CompiledVerdict {
  const parents = spec.parent_rules ?? [];
  const stopOnBlock = spec.stop_on_block === true;
  const rules = parents.map((parent, i) => parentRule(parent, i, stopOnBlock ? parents.length - i : 1));
  return {
    revision: createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 16),
    ruleCount: rules.length,
    stopOnBlock,
    runner: new PolicyRunner(catalog, rules),
    halts: (event) => stopOnBlock && (event.params as { action?: string } | undefined)?.action === 'block',
  };
}

/** block if a block rule fired, else allow if an allow rule fired, else ignore. */
export function decideVerdict(results: readonly RuleResult[]): VerdictAction {
  const fired = results.filter((r) => r.result === true).map((r) => (r.event?.params as { action: VerdictAction } | undefined)?.action);
  if (fired.includes('block')) return 'block';
  if (fired.includes('allow')) return 'allow';
  return 'ignore';
}

/** A rule over one field; an unknown fact (null) never matches, whatever the operator. */
function parentRule(parent: ParentRule, index: number, priority: number): RuleProperties {
  const fact = VERDICT_FIELDS[parent.field] as string;
  return {
    name: `parent_rules[${index}]`,
    priority,
    conditions: {
      all: [
        { fact, operator: 'notEqual', value: null },
        { fact, operator: parent.operator === '==' ? 'equal' : 'notEqual', value: parent.target.bool },
      ],
    },
    event: { type: 'parent_rule', params: { action: parent.action, index } },
  };
}
