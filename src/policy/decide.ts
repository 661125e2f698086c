// Combines the fired rules of one run into the recommended action, errors and warnings.
import type { FiredRule } from '../engine/run.js';
import { ACTIONS, type Action } from '../vocabulary.js';
import type { CompiledPolicy, Verdict } from './compile.js';

export interface Decision {
  action: Action;
  errors: string[];
  warnings: string[];
  /** Verdicts of the fired checks and rules that count (none an exemption set aside), in policy order. */
  fired: Verdict[];
  /** Names of the exemptions that applied, in policy order. */
  exemptions: string[];
  /** Verdicts of the fired checks and rules that an applied exemption set aside, in policy order. */
  exempted: Verdict[];
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
  const all = firedVerdicts(policy, fired).sort((a, b) => a.order - b.order);
  // Exemptions first (docs/policies.md, Exemptions): one that applies sets aside the verdicts of the checks and
  // rules it names, with their codes; every other verdict decides as ever, so a block it does not name wins.
  const applied = all.filter((v) => v.source === 'exemption');
  const exemptFrom = (v: Verdict) => applied.some((e) => e.exempts === 'all' || e.exempts?.has(v.name) === true);
  const verdicts: Verdict[] = [];
  const exempted: Verdict[] = [];
  for (const verdict of all) if (verdict.source !== 'exemption') (applied.length > 0 && exemptFrom(verdict) ? exempted : verdicts).push(verdict);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const verdict of verdicts) {
    // `action: none` observes: the check runs and its facts show, but it reports nothing.
    if (!verdict.code || verdict.action === 'none') continue;
    const list = verdict.kind === 'error' ? errors : warnings;
    if (!list.includes(verdict.code)) list.push(verdict.code);
  }
  let action: Action;
  if (policy.ruleCount === 0) action = 'none';
  else {
    // A check or rule with `action: none` adds nothing to the verdict: when nothing else fired, the default
    // action applies.
    action = mostSevere(verdicts.map((v) => v.action));
    if (action === 'none') action = policy.defaultAction;
  }
  return { action, errors, warnings, fired: verdicts, exemptions: applied.map((e) => e.name), exempted };
}

/** The verdicts of the rules that fired: of a plugin's shared rule, those of the checks that held. */
function firedVerdicts(policy: CompiledPolicy, fired: readonly FiredRule[]): Verdict[] {
  return fired.flatMap((rule) => {
    const verdicts = policy.verdicts.get(rule.name) ?? [];
    return verdicts.length === 1 ? [...verdicts] : verdicts.filter((_verdict, i) => rule.children[i] === true);
  });
}
