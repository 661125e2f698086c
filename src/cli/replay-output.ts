// What `email-trust policy replay` prints: the from → to matrix of actions with masked samples, the totals
// before and after, the facts that could not be replayed and the soft_check calls replayed without their
// domain facts; with --labels, the confusion tables against the labels; or the same as one JSON document (--json).
import type { NotReplayed, ReplayReport } from '../service/policy-replay.js';
import { CHALLENGE_ACTIONS, type ConfusionTable, type LabelsReport, OUTCOMES } from '../service/replay-labels.js';
import { fmt } from './bulk/progress.js';

export interface ReplayRun {
  project: { id: string; name: string };
  /** The candidate policy file as given. */
  file: string;
  /** Start of the window (ms) and how it was asked for (e.g. `7d`). */
  since: { at: number; asked: string; bounded_by_retention: boolean };
  seconds: number;
  report: ReplayReport;
}

export function replayJson(run: ReplayRun): string {
  const { report } = run;
  return JSON.stringify(
    {
      project: run.project,
      policy: { file: run.file, ...report.policy },
      since: new Date(run.since.at).toISOString(),
      since_asked: run.since.asked,
      bounded_by_retention: run.since.bounded_by_retention,
      events: report.events,
      changed: report.changed,
      seconds: round(run.seconds, 3),
      events_per_second: Math.round(rateOf(run)),
      matrix: report.matrix,
      before: report.before,
      after: report.after,
      not_replayed: report.not_replayed,
      soft_check: report.soft_check,
      velocity: 'as recorded at decision time',
      ...(report.labels ? { labels: report.labels } : {}),
    },
    null,
    2,
  );
}

export function replayText(run: ReplayRun): string {
  const { report } = run;
  const share = report.events > 0 ? ` (${round((100 * report.changed) / report.events, 1)}%)` : '';
  const bounded = run.since.bounded_by_retention ? ', bounded by the retention window' : '';
  const lines = [
    `policy replay: ${run.file} (revision ${report.policy.revision}) on project ${run.project.name}`,
    `window: events since ${new Date(run.since.at).toISOString()} (--since ${run.since.asked}${bounded})`,
    `replayed ${fmt(report.events)} events in ${run.seconds.toFixed(1)} s (${fmt(Math.round(rateOf(run)))}/s); ${fmt(report.changed)} would change action${share}`,
  ];
  if (report.events === 0) {
    lines.push('', 'no verify events of this project in the window: nothing to replay');
    return lines.join('\n');
  }
  lines.push(
    '',
    ...table(
      ['from', '', 'to', 'events', 'samples (changed only)'],
      report.matrix.map((c) => [c.from, '→', c.to, fmt(c.count), c.samples.join(', ')]),
      [3],
    ),
  );
  const actions = [...new Set([...Object.keys(report.before), ...Object.keys(report.after)])];
  lines.push(
    '',
    ...table(
      ['action', 'before', 'after'],
      actions.map((a) => [a, fmt(report.before[a] ?? 0), fmt(report.after[a] ?? 0)]),
      [1, 2],
    ),
  );
  lines.push('', 'velocity facts are taken as recorded at decision time (the counts then, this event included).');
  const { soft_check: soft } = report;
  if (soft.events > 0) {
    lines.push(
      `${fmt(soft.events)} of ${fmt(report.events)} events were soft_check calls, stored without their domain facts, which the checks reading them took as unknown (as a failed lookup is):`,
      ...soft.facts.map((m) => factLine(m, report.events)),
    );
  }
  if (report.not_replayed.length === 0) {
    lines.push(`every ${soft.events > 0 ? 'other ' : ''}network and history fact the candidate read was recorded with its events.`);
  } else {
    lines.push('could not replay (not recorded with the event: unknown for those events, as a failed lookup is):');
    lines.push(...report.not_replayed.map((m) => factLine(m, report.events)));
  }
  if (report.labels) lines.push('', ...labelLines(report.labels, run.file, report.events));
  return lines.join('\n');
}

/** The confusion tables of the stored and the candidate's actions against the labels, and what their words mean. */
export function labelLines(labels: LabelsReport, file: string, events: number): string[] {
  if (labels.labelled === 0) return [`labels: none of the ${fmt(events)} replayed events has a label (email-trust feedback gives them)`];
  const byLabel = Object.entries(labels.by_label)
    .map(([label, n]) => `${label} ${fmt(n ?? 0)}`)
    .join(', ');
  const { current, candidate } = labels;
  const row = (side: 'bad' | 'good', title: string) =>
    OUTCOMES.map((o, i) => [
      i === 0 ? title : '',
      side === 'good' && o !== 'allowed' ? `${o} (false positive)` : o,
      fmt(current[side][o]),
      fmt(candidate[side][o]),
    ]);
  return [
    `labels: ${fmt(labels.labelled)} of ${fmt(events)} replayed events labelled (${byLabel}), ${fmt(labels.unlabelled)} unlabelled`,
    ...table(
      ['labelled', 'action', 'current', 'candidate'],
      [
        ...row('bad', 'bad'),
        ...row('good', 'good'),
        ['precision', 'block or challenge', ratioText(current, 'precision'), ratioText(candidate, 'precision')],
        ['recall', 'block or challenge', ratioText(current, 'recall'), ratioText(candidate, 'recall')],
      ],
      [2, 3],
    ),
    `current: the action stored with each event, what was decided then; candidate: ${file} re-deciding the same events.`,
    `challenged: every action between allow and block (${CHALLENGE_ACTIONS.join(', ')}); none counts as allowed.`,
    'precision: flagged (blocked or challenged) and labelled bad / flagged and labelled; recall: flagged and labelled bad / labelled bad; n/a: nothing to divide.',
  ];
}

function ratioText(table: ConfusionTable, which: 'precision' | 'recall'): string {
  const value = table[which];
  if (value === null) return 'n/a';
  const flaggedBad = table.bad.blocked + table.bad.challenged;
  const of = which === 'precision' ? flaggedBad + table.good.blocked + table.good.challenged : flaggedBad + table.bad.allowed;
  return `${value.toFixed(3)} (${fmt(flaggedBad)}/${fmt(of)})`;
}

function factLine(m: NotReplayed, events: number): string {
  const checks = m.checks.length > 0 ? `; checks: ${m.checks.join(', ')}` : '';
  return `  ${m.fact} (${m.plugin}): ${fmt(m.events)} of ${fmt(events)} events${checks}`;
}

function rateOf(run: ReplayRun): number {
  return run.seconds > 0 ? run.report.events / run.seconds : 0;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Columns padded to their widest cell; those in `right` aligned right. */
function table(head: string[], rows: string[][], right: number[]): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1
          ? right.includes(i)
            ? cell.padStart(widths[i] ?? 0)
            : cell
          : right.includes(i)
            ? cell.padStart(widths[i] ?? 0)
            : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}
