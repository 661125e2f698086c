// `policy replay --labels` (issue 50, docs/decisions/0089): the replayed events beside the labels feedback gave
// them, as a confusion table of "block or challenge" against the labels, once for the actions stored with the
// events (what was decided: the outcome each label is about) and once for the candidate's.
import { isBadLabel, LABELS, type LabelName } from '../store/labels.js';
import { ACTIONS, type Action } from '../vocabulary.js';

/** What an action did to a sign-up, as the table groups actions. */
export type Outcome = 'blocked' | 'challenged' | 'allowed';
export const OUTCOMES: readonly Outcome[] = ['blocked', 'challenged', 'allowed'];

/** The actions counted as challenged: every one between allow and block, each holding the sign-up back or asking more of it. */
export const CHALLENGE_ACTIONS = ACTIONS.filter((a) => a !== 'none' && a !== 'allow' && a !== 'block');

/** block: blocked; allow, or none (the policy enabled nothing): allowed; anything between: challenged. */
export function outcomeOf(action: string): Outcome {
  if (action === 'block') return 'blocked';
  return action === 'allow' || action === 'none' ? 'allowed' : 'challenged';
}

export interface ConfusionTable {
  /** Events labelled bad (fraud, abuse, …), by what the action did. */
  bad: Record<Outcome, number>;
  /** Events labelled legitimate: blocked and challenged are the false positives. */
  good: Record<Outcome, number>;
  /** Flagged (blocked or challenged) and labelled bad / flagged and labelled; null when no labelled event was flagged. */
  precision: number | null;
  /** Flagged and labelled bad / labelled bad; null when no event is labelled bad. */
  recall: number | null;
  /** The labelled events per action, before grouping. */
  actions: { bad: Record<string, number>; good: Record<string, number> };
}

export interface LabelsReport {
  /** Replayed events with a label, and without one. */
  labelled: number;
  unlabelled: number;
  /** Labelled events per label. */
  by_label: Partial<Record<LabelName, number>>;
  /** The action stored with each event: what was decided, by whichever revision decided it then. */
  current: ConfusionTable;
  /** The candidate's action on each event. */
  candidate: ConfusionTable;
}

/** Ratios are given to 4 decimals. */
const DIGITS = 4;

class Table {
  private readonly counts = { bad: new Map<string, number>(), good: new Map<string, number>() };

  add(bad: boolean, action: string): void {
    const side = bad ? this.counts.bad : this.counts.good;
    side.set(action, (side.get(action) ?? 0) + 1);
  }

  summary(): ConfusionTable {
    const grouped = (side: Map<string, number>) => {
      const out: Record<Outcome, number> = { blocked: 0, challenged: 0, allowed: 0 };
      for (const [action, n] of side) out[outcomeOf(action)] += n;
      return out;
    };
    const bad = grouped(this.counts.bad);
    const good = grouped(this.counts.good);
    const flaggedBad = bad.blocked + bad.challenged;
    const flagged = flaggedBad + good.blocked + good.challenged;
    const labelledBad = flaggedBad + bad.allowed;
    const bySeverity = (side: Map<string, number>) =>
      Object.fromEntries([...side].sort(([a], [b]) => ACTIONS.indexOf(b as Action) - ACTIONS.indexOf(a as Action) || a.localeCompare(b)));
    return {
      bad,
      good,
      precision: ratio(flaggedBad, flagged),
      recall: ratio(flaggedBad, labelledBad),
      actions: { bad: bySeverity(this.counts.bad), good: bySeverity(this.counts.good) },
    };
  }
}

function ratio(n: number, of: number): number | null {
  if (of === 0) return null;
  const f = 10 ** DIGITS;
  return Math.round((n / of) * f) / f;
}

/** Counts each replayed event under its label (if any), with its stored and its candidate action. */
export class LabelTally {
  private readonly current = new Table();
  private readonly candidate = new Table();
  private readonly byLabel = new Map<LabelName, number>();
  private labelled = 0;
  private unlabelled = 0;

  add(label: LabelName | undefined, stored: string, candidate: string): void {
    if (label === undefined) {
      this.unlabelled += 1;
      return;
    }
    this.labelled += 1;
    this.byLabel.set(label, (this.byLabel.get(label) ?? 0) + 1);
    const bad = isBadLabel(label);
    this.current.add(bad, stored);
    this.candidate.add(bad, candidate);
  }

  summary(): LabelsReport {
    return {
      labelled: this.labelled,
      unlabelled: this.unlabelled,
      by_label: Object.fromEntries(LABELS.filter((l) => this.byLabel.has(l)).map((l) => [l, this.byLabel.get(l)])),
      current: this.current.summary(),
      candidate: this.candidate.summary(),
    };
  }
}
