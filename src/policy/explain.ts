// Why a request got its action, from the run's own condition results (RunRequest.explain): each enabled
// check and free rule with its conditions and the fact values they saw, whether it fired and what it
// contributed, the on_unknown that applied to a check whose facts were unknown, and why the final action
// won (the severity order). Built here because the compiler is the one place that knows how a policy
// became its engine rule (one `any`, one child per check, per on_unknown and per free rule, in the order
// of CompiledPolicy.verdicts). Computed only when asked for: evaluate() keeps no condition results otherwise.
import type { FactCatalog } from '../engine/catalog.js';
import type { ConditionOutcome, RuleOutcome } from '../engine/run.js';
import { ACTIONS, type Action, type Mode, type OnUnknown } from '../vocabulary.js';
import type { CompiledPolicy, Verdict } from './compile.js';
import type { Decision } from './decide.js';

/** A fact test as the run saw it. `saw` absent: not evaluated (an earlier condition already decided). */
export interface ExplainedTest {
  fact: string;
  operator: string;
  value: unknown;
  /** The fact's value; null when unknown. */
  saw?: unknown;
  /** The value says nothing (null, or one of the fact's "could not tell" values). */
  unknown?: true;
  /** Whether the test held; null when it was not evaluated. */
  held: boolean | null;
}

export type ExplainedCondition =
  | ExplainedTest
  | { all: ExplainedCondition[]; held: boolean | null }
  | { any: ExplainedCondition[]; held: boolean | null }
  | { not: ExplainedCondition; held: boolean | null };

export interface ExplainedEntry {
  /** Check name, free rule name or exemption name. */
  name: string;
  kind: 'check' | 'rule' | 'exemption';
  mode?: Mode;
  fired: boolean;
  /** The action it takes when it fires (contributed when `fired`). */
  action: Action;
  /** Its error or warning code, when it has one. */
  code?: string;
  conditions: ExplainedCondition;
  /** A check whose on_unknown is not ignore: the facts it reads that were unknown, and whether that fired. */
  on_unknown?: { action: OnUnknown; unknown_facts: string[]; fired: boolean };
  /** An exemption's: the checks and rules it exempts from (`all`: every one); `fired` says whether it applied. */
  exempts?: 'all' | string[];
  /** A check or rule that fired but was set aside: the exemptions that applied to it. */
  exempted_by?: string[];
}

export interface Explanation {
  policy: string;
  revision: string;
  action: Action;
  /** How the action was reached. */
  decided_by: 'severity' | 'default_action' | 'no_checks';
  /** One sentence: why this action won. */
  why: string;
  /** What fired and the action each contributed, in policy order (on_unknown verdicts named `on_unknown:<check>`). */
  contributions: { name: string; action: Action }[];
  /** The exemptions that applied, each with the fired checks and rules it set aside. */
  exemptions: { name: string; set_aside: string[] }[];
  /** Actions, most severe first: the most severe one that fired wins. */
  severity_order: Action[];
  /** Every enabled check and free rule, in policy order. */
  entries: ExplainedEntry[];
}

/** Actions, most severe first. */
export const SEVERITY_ORDER: readonly Action[] = [...ACTIONS].reverse();

/** The explanation of one run of `policy` that was asked to keep its condition results. */
export function explainRun(policy: CompiledPolicy, rules: readonly RuleOutcome[], decision: Decision): Explanation {
  const placed: { order: number; entry: ExplainedEntry }[] = [];
  const unknownOf = new Map<string, { action: OnUnknown; unknown_facts: string[]; fired: boolean }>();
  for (const [ruleName, verdicts] of policy.verdicts) {
    const run = rules.find((r) => r.name === ruleName);
    const children = run ? childrenOf(run.conditions, verdicts.length) : [];
    verdicts.forEach((verdict, i) => {
      const child = children[i];
      if (verdict.source === 'unknown') {
        unknownOf.set(verdict.name, {
          action: verdict.action as OnUnknown,
          unknown_facts: child ? unknownFacts(child, policy.catalog) : [],
          fired: child?.result === true,
        });
        return;
      }
      placed.push({ order: verdict.order, entry: entryOf(policy, verdict, child) });
    });
  }
  // The rule's children are grouped by plugin; the explanation keeps the policy's order.
  const entries = placed.sort((a, b) => a.order - b.order).map((p) => p.entry);
  for (const entry of entries) {
    const unknown = unknownOf.get(entry.name);
    if (unknown && entry.kind === 'check') entry.on_unknown = unknown;
  }
  const contributions = decision.fired.map((v) => ({ name: verdictName(v), action: v.action }));
  const exemptions = decision.exemptions.map((name) => ({ name, set_aside: [] as string[] }));
  for (const verdict of decision.exempted) {
    const by = exemptions.filter((e) => exemptsVerdict(policy, e.name, verdict));
    for (const e of by) e.set_aside.push(verdictName(verdict));
    const entry = entries.find((x) => x.name === verdict.name && x.kind !== 'exemption');
    if (entry) entry.exempted_by = by.map((e) => e.name);
  }
  const { decided_by, why: decided } = reason(policy, decision, contributions);
  const setAside = exemptions.filter((e) => e.set_aside.length > 0).map((e) => `${e.name} set aside ${e.set_aside.join(', ')}`);
  const why = setAside.length > 0 ? `${decided}; exemption ${setAside.join('; exemption ')}` : decided;
  return {
    policy: policy.name,
    revision: policy.revision,
    action: decision.action,
    decided_by,
    why,
    contributions,
    exemptions,
    severity_order: [...SEVERITY_ORDER],
    entries,
  };
}

function verdictName(verdict: Verdict): string {
  return verdict.source === 'unknown' ? `on_unknown:${verdict.name}` : verdict.name;
}

function exemptsVerdict(policy: CompiledPolicy, exemption: string, verdict: Verdict): boolean {
  const from = policy.exemptions.find((e) => e.name === exemption)?.from;
  return from === 'all' || from?.has(verdict.name) === true;
}

/** The children of the policy rule's top-level `any` (a single condition is the child itself). */
function childrenOf(conditions: ConditionOutcome, count: number): ConditionOutcome[] {
  if ('any' in conditions && conditions.any.length === count) return conditions.any;
  if ('all' in conditions && conditions.all.length === count) return conditions.all;
  return count === 1 ? [conditions] : [];
}

function entryOf(policy: CompiledPolicy, verdict: Verdict, child: ConditionOutcome | undefined): ExplainedEntry {
  const check = verdict.source === 'check' ? policy.checks.find((c) => c.name === verdict.name) : undefined;
  const exempts = verdict.exempts === undefined ? {} : { exempts: verdict.exempts === 'all' ? ('all' as const) : [...verdict.exempts] };
  return {
    name: verdict.name,
    kind: verdict.source === 'check' ? 'check' : verdict.source === 'exemption' ? 'exemption' : 'rule',
    ...exempts,
    ...(check ? { mode: check.mode } : {}),
    fired: child?.result === true,
    action: verdict.action,
    ...(verdict.code ? { code: verdict.code } : {}),
    conditions: child ? explained(child, policy.catalog) : { all: [], held: null },
  };
}

function explained(node: ConditionOutcome, catalog: FactCatalog): ExplainedCondition {
  const held = node.result ?? null;
  if ('all' in node) return { all: node.all.map((c) => explained(c, catalog)), held };
  if ('any' in node) return { any: node.any.map((c) => explained(c, catalog)), held };
  if ('not' in node) return { not: explained(node.not, catalog), held };
  const test: ExplainedTest = { fact: node.fact, operator: node.operator, value: node.value, held };
  if ('factResult' in node) {
    test.saw = node.factResult ?? null;
    if (!catalog.isKnown(node.fact, node.factResult)) test.unknown = true;
  }
  return test;
}

/** The facts of an on_unknown condition that were seen unknown. */
function unknownFacts(node: ConditionOutcome, catalog: FactCatalog): string[] {
  const facts = new Set<string>();
  const walk = (n: ConditionOutcome): void => {
    if ('all' in n) n.all.forEach(walk);
    else if ('any' in n) n.any.forEach(walk);
    else if ('not' in n) walk(n.not);
    else if ('factResult' in n && !catalog.isKnown(n.fact, n.factResult)) facts.add(n.fact);
  };
  walk(node);
  return [...facts];
}

function reason(
  policy: CompiledPolicy,
  decision: Decision,
  contributions: readonly { name: string; action: Action }[],
): { decided_by: Explanation['decided_by']; why: string } {
  if (policy.ruleCount === 0) return { decided_by: 'no_checks', why: 'the policy enables no checks and no rules: the action is none' };
  if (contributions.length === 0) {
    const what = decision.exempted.length > 0 ? 'nothing fired that an exemption did not set aside' : 'nothing fired';
    return { decided_by: 'default_action', why: `${what}: the policy's default_action ${policy.defaultAction} applies` };
  }
  if (contributions.every((c) => c.action === 'none')) {
    const names = contributions.map((c) => c.name).join(', ');
    return {
      decided_by: 'default_action',
      why: `only action none fired (${names}): it adds nothing, and the policy's default_action ${policy.defaultAction} applies`,
    };
  }
  const winners = contributions.filter((c) => c.action === decision.action).map((c) => c.name);
  const others = contributions.filter((c) => c.action !== decision.action).map((c) => `${c.name} (${c.action})`);
  const beat = others.length > 0 ? `; it outranks ${others.join(', ')}` : '';
  return {
    decided_by: 'severity',
    why: `${decision.action} is the most severe action that fired, from ${winners.join(', ')}${beat} (severity: ${SEVERITY_ORDER.join(' > ')})`,
  };
}

/** The explanation as lines for a terminal (`email-trust policy explain`). */
export function renderExplanation(explanation: Explanation): string {
  const lines = [`policy ${explanation.policy} (revision ${explanation.revision}): ${explanation.action}`, `why: ${explanation.why}`, ''];
  for (const entry of explanation.entries) renderEntry(entry, lines);
  return lines.join('\n');
}

/**
 * What fired (checks, rules, on_unknown, exemptions), with the facts their conditions saw, and why: a failed
 * policy test's story. `expected`: names the test expected to fire, shown whether they fired or not, so a
 * rule that did not fire shows what its conditions saw.
 */
export function renderFired(explanation: Explanation, indent = '', expected: readonly string[] = []): string {
  const lines = [`why: ${explanation.why}`];
  for (const entry of explanation.entries) {
    if (entry.fired || entry.on_unknown?.fired) renderEntry(entry, lines);
    else if (expected.includes(entry.name)) {
      lines.push(`[expected to fire, did not]`);
      renderEntry(entry, lines);
    }
  }
  return lines.map((line) => `${indent}${line}`).join('\n');
}

function renderEntry(entry: ExplainedEntry, lines: string[]): void {
  if (entry.kind === 'exemption') {
    const from = entry.exempts === 'all' ? 'every check and rule' : (entry.exempts ?? []).join(', ');
    lines.push(`${entry.fired ? '[applied]' : '[       ]'} ${entry.name}  exemption from ${from}`);
    renderCondition(entry.conditions, 2, lines);
    return;
  }
  const what = [entry.kind, entry.mode].filter(Boolean).join(', ');
  const code = entry.code ? ` (${entry.code})` : '';
  const exempt = entry.exempted_by ? `, set aside by exemption ${entry.exempted_by.join(', ')}` : '';
  lines.push(`${entry.fired ? '[fired]' : '[     ]'} ${entry.name}  ${what} -> ${entry.action}${code}${exempt}`);
  renderCondition(entry.conditions, 2, lines);
  const unknown = entry.on_unknown;
  if (unknown) {
    const facts = unknown.unknown_facts.length > 0 ? `unknown: ${unknown.unknown_facts.join(', ')}` : 'no fact unknown';
    lines.push(`    on_unknown ${unknown.action}: ${facts}${unknown.fired ? ' -> fired' : ''}`);
  }
}

function renderCondition(condition: ExplainedCondition, depth: number, lines: string[]): void {
  const pad = '  '.repeat(depth);
  const held = condition.held === null ? 'not evaluated' : condition.held ? 'held' : 'did not hold';
  if ('all' in condition || 'any' in condition) {
    const [word, children] = 'all' in condition ? ['all of', condition.all] : ['any of', condition.any];
    lines.push(`${pad}${word}: ${held}`);
    for (const child of children) renderCondition(child, depth + 1, lines);
  } else if ('not' in condition) {
    lines.push(`${pad}not: ${held}`);
    renderCondition(condition.not, depth + 1, lines);
  } else {
    const saw = !('saw' in condition) ? '' : condition.unknown ? `saw ${JSON.stringify(condition.saw)} (unknown), ` : `saw ${JSON.stringify(condition.saw)}, `;
    lines.push(`${pad}${condition.fact} ${condition.operator} ${JSON.stringify(condition.value)}: ${saw}${held}`);
  }
}
