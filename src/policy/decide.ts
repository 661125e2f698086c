// Combines the fired rules of one run into the recommended action, errors and warnings.
import type { RuleResult } from 'json-rules-engine';
import { type CompiledPolicy, firedVerdicts, type Verdict } from './compile.js';
import { ACTIONS, type Action } from './types.js';

export interface Decision {
  action: Action;
  errors: string[];
  warnings: string[];
  /** Verdicts of the fired rules, in policy order. */
  fired: Verdict[];
}

const SEVERITY = new Map<Action, number>(ACTIONS.map((action, i) => [action, i]));

export function severity(action: Action): number {
  return SEVERITY.get(action) ?? 0;
}

/** The most severe of the actions given; `none` for none. */
export function mostSevere(actions: Iterable<Action>): Action {
  let worst: Action = 'none';
  for (const action of actions) if (severity(action) > severity(worst)) worst = action;
  return worst;
}

/** Decides from the run's rule results (every evaluated rule, fired or not). */
export function decide(policy: CompiledPolicy, results: readonly RuleResult[]): Decision {
  const fired = firedVerdicts(policy, results).sort((a, b) => a.order - b.order);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const verdict of fired) {
    if (!verdict.code) continue;
    const list = verdict.kind === 'error' ? errors : warnings;
    if (!list.includes(verdict.code)) list.push(verdict.code);
  }
  let action: Action;
  if (policy.ruleCount === 0) action = 'none';
  else if (fired.length === 0) action = policy.defaultAction;
  else action = mostSevere(fired.map((v) => v.action));
  return { action, errors, warnings, fired };
}
