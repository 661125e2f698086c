// Replay tests of a policy (docs/policies.md, Replay tests): `replay-tests/<policy>.yaml` beside the policy file
// holds fixture events as a project stored them (address, IP, recorded facts, the action decided, a label)
// and tests, each naming events and the figures `policy replay --labels` must show for the policy. The events
// go through the replay itself (replayPolicy, batchDecider), in memory: nothing is stored.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, LineCounter, parseDocument } from 'yaml';
import type { ProjectListReader } from '../engine/plugin.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { didYouMean } from '../policy/did-you-mean.js';
import { PolicyError, type PolicyProblem } from '../policy/errors.js';
import { describeSchemaErrors, pointer, schemaValidator } from '../schemas.js';
import type { LabelName } from '../store/labels.js';
import type { ReplayEvent } from '../store/replay-events.js';
import type { Action } from '../vocabulary.js';
import { batchDecider, ioFacts, replayPolicy } from './policy-replay.js';
import type { ConfusionTable, LabelsReport } from './replay-labels.js';

/** The folder beside a policy file that holds its replay tests, one file per policy: `<folder>/<name>.yaml`. */
export const REPLAY_TESTS_FOLDER = 'replay-tests';

export interface ReplayTestEvent {
  email_address: string;
  ipv4_address?: string;
  ipv6_address?: string;
  device?: string;
  action: Action;
  label?: LabelName;
  facts?: Record<string, unknown>;
  minutes_ago?: number;
}

export type Figures = Partial<
  Record<'bad_blocked' | 'bad_challenged' | 'bad_allowed' | 'good_blocked' | 'good_challenged' | 'good_allowed', number> &
    Record<'precision' | 'recall', number | null>
>;

export interface ReplayTest {
  name: string;
  events?: string[];
  expected: { candidate?: Figures; current?: Figures; labelled?: number; unlabelled?: number; changed?: number };
}

export interface ReplayTestSuite {
  /** The file it was read from. */
  file: string;
  description?: string;
  events: Record<string, ReplayTestEvent>;
  lists?: Record<string, string[]>;
  tests: ReplayTest[];
}

export interface ReplayTestResult {
  test: ReplayTest;
  passed: boolean;
  /** What differed, one line each; for a failed test, then each labelled event with its stored and replayed action. */
  failures: string[];
}

const PROJECT = 'policy-test';

/** The replay tests file of `policyFile`: `replay-tests/<name>.yaml` in its folder. */
export function replayTestsFileOf(policyFile: string): string {
  return join(dirname(policyFile), REPLAY_TESTS_FOLDER, basename(policyFile).replace(/\.ya?ml$/, '.yaml'));
}

/** The replay tests beside the policy's file, or null when it has none; a PolicyError naming file, line and path when the file is invalid. */
export function replayTestsOf(policy: CompiledPolicy): ReplayTestSuite | null {
  const file = replayTestsFileOf(policy.file);
  return existsSync(file) ? readReplayTests(file, policy) : null;
}

/** Reads and checks a replay tests file against the policy: its schema, the events its tests name, the recorded facts' names. */
export function readReplayTests(file: string, policy: CompiledPolicy): ReplayTestSuite {
  const lineCounter = new LineCounter();
  const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter, uniqueKeys: true });
  const problem = (path: readonly (string | number)[], message: string): PolicyProblem => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
    const range = (node as { range?: [number, number] } | undefined)?.range;
    const at = range ? lineCounter.linePos(range[0]) : { line: 0, col: 0 };
    return { file, line: at.line, column: at.col, path: pointer(path), message };
  };
  if (doc.errors.length > 0) {
    throw new PolicyError(doc.errors.map((e) => ({ file, line: e.linePos?.[0].line ?? 0, column: e.linePos?.[0].col ?? 0, path: '', message: e.message })));
  }
  const document = doc.toJS() as unknown;
  const validate = schemaValidator<Omit<ReplayTestSuite, 'file'>>('policy-replay-test');
  if (!validate(document)) throw new PolicyError(describeSchemaErrors(validate.errors ?? []).map((p) => problem(p.path, p.message)));
  if (!isMap(doc.contents)) throw new PolicyError([problem([], 'must be a mapping with events: and tests:')]);
  const problems: PolicyProblem[] = [];
  const recorded = [...ioFacts(policy.catalog)].sort();
  for (const [name, event] of Object.entries(document.events)) {
    for (const fact of Object.keys(event.facts ?? {})) {
      if (!recorded.includes(fact)) {
        problems.push(
          problem(
            ['events', name, 'facts', fact],
            `"${fact}" is not a recorded fact (those are the network and history facts, of the I/O plugins)${didYouMean(fact, recorded)}`,
          ),
        );
      }
    }
  }
  const names = Object.keys(document.events);
  document.tests.forEach((test, i) => {
    (test.events ?? []).forEach((name, j) => {
      if (!names.includes(name)) problems.push(problem(['tests', i, 'events', j], `"${name}" is not one of the events${didYouMean(name, names)}`));
    });
  });
  if (problems.length > 0) throw new PolicyError(problems);
  return { file, ...document };
}

/** Runs each test: its events replayed by `policy` with their labels, the figures compared with what it expects. */
export async function runReplayTests(policy: CompiledPolicy, suite: ReplayTestSuite, now: () => number = Date.now): Promise<ReplayTestResult[]> {
  const decide = batchDecider(policy, PROJECT, listsOf(suite.lists ?? {}));
  const results: ReplayTestResult[] = [];
  for (const test of suite.tests) {
    const at = now();
    const names = test.events ?? Object.keys(suite.events);
    const events = names.map((name, i) => eventOf(suite.events[name] as ReplayTestEvent, i + 1, at));
    const labels = new Map<number, LabelName>();
    names.forEach((name, i) => {
      const label = suite.events[name]?.label;
      if (label) labels.set(i + 1, label);
    });
    const decided: string[] = [];
    const recording = async (batch: readonly ReplayEvent[]) => {
      const decisions = await decide(batch);
      decided.push(...decisions.actions);
      return decisions;
    };
    const report = await replayPolicy(policy, { events: once(events), decide: recording, labels: async () => labels });
    const failures = differences(test, report.labels as LabelsReport, report.changed);
    if (failures.length > 0) {
      names.forEach((name, i) => {
        const e = suite.events[name] as ReplayTestEvent;
        if (e.label) failures.push(`  ${name} (${e.label}): stored ${e.action}, replayed ${decided[i]}`);
      });
    }
    results.push({ test, passed: failures.length === 0, failures });
  }
  return results;
}

async function* once(events: ReplayEvent[]): AsyncGenerator<ReplayEvent[]> {
  yield events;
}

function eventOf(e: ReplayTestEvent, id: number, at: number): ReplayEvent {
  const lower = e.email_address.toLowerCase().normalize('NFC');
  return {
    id,
    email: e.email_address,
    baseEmail: lower,
    ipv4: e.ipv4_address ?? null,
    ipv6: e.ipv6_address ?? null,
    device: e.device ?? null,
    action: e.action,
    recordedFacts: JSON.stringify(e.facts ?? {}),
    createdAt: at - Math.round((e.minutes_ago ?? 0) * 60_000),
  };
}

function listsOf(lists: Readonly<Record<string, readonly string[]>>): ProjectListReader {
  const sets = new Map(Object.entries(lists).map(([name, entries]) => [name, new Set(entries)]));
  const none: ReadonlySet<string> = new Set();
  return { entries: async (list) => sets.get(list) ?? none };
}

function differences(test: ReplayTest, labels: LabelsReport, changed: number): string[] {
  const failures: string[] = [];
  const { expected } = test;
  for (const [key, actual] of [
    ['labelled', labels.labelled],
    ['unlabelled', labels.unlabelled],
    ['changed', changed],
  ] as const) {
    const want = expected[key];
    if (want !== undefined && want !== actual) failures.push(`${key}: expected ${want}, got ${actual}`);
  }
  for (const side of ['current', 'candidate'] as const) {
    const figures = figuresOf(labels[side]);
    for (const [key, want] of Object.entries(expected[side] ?? {}) as [keyof Figures, number | null][]) {
      const actual = figures[key] ?? null;
      if (!sameFigure(want, actual)) failures.push(`${side}.${key}: expected ${want}, got ${actual}`);
    }
  }
  return failures;
}

function figuresOf(table: ConfusionTable): Figures {
  return {
    bad_blocked: table.bad.blocked,
    bad_challenged: table.bad.challenged,
    bad_allowed: table.bad.allowed,
    good_blocked: table.good.blocked,
    good_challenged: table.good.challenged,
    good_allowed: table.good.allowed,
    precision: table.precision,
    recall: table.recall,
  };
}

/** A ratio matches to the decimals the test writes (0.67 matches 0.6667); a count exactly; null only null. */
function sameFigure(expected: number | null, actual: number | null): boolean {
  if (expected === null || actual === null) return expected === actual;
  const decimals = Math.min(4, (String(expected).split('.')[1] ?? '').length);
  const f = 10 ** decimals;
  return Math.round(actual * f) / f === expected;
}
