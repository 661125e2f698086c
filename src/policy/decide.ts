// Combines the fired rules of one run into the recommended action, errors and warnings.
import type { FiredRule } from '../engine/run.js';
import { ACTIONS, type Action } from '../vocabulary.js';
import type { CompiledPolicy, Verdict } from './compile.js';

export interface Decision {
  action: Action;
  errors: string[];
  warnings: string[];
  /** Verdicts of the fired checks and rules, in policy order. */
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

/** Decides from the rules that fired in one run. */
export function decide(policy: CompiledPolicy, fired: readonly FiredRule[]): Decision {
  const verdicts = firedVerdicts(policy, fired).sort((a, b) => a.order - b.order);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const verdict of verdicts) {
    if (!verdict.code) continue;
    const list = verdict.kind === 'error' ? errors : warnings;
    if (!list.includes(verdict.code)) list.push(verdict.code);
  }
  let action: Action;
  if (policy.ruleCount === 0) action = 'none';
  else {
    // A check or rule with `action: none` reports its code and adds nothing to the verdict: when nothing
    // else fired, the default action applies.
    action = mostSevere(verdicts.map((v) => v.action));
    if (action === 'none') action = policy.defaultAction;
  }
  return { action, errors, warnings, fired: verdicts };
}

/** The verdicts of the rules that fired: of a plugin's shared rule, those of the checks that held. */
function firedVerdicts(policy: CompiledPolicy, fired: readonly FiredRule[]): Verdict[] {
  return fired.flatMap((rule) => {
    const verdicts = policy.verdicts.get(rule.name) ?? [];
    return verdicts.length === 1 ? [...verdicts] : verdicts.filter((_verdict, i) => rule.children[i] === true);
  });
}
