// Runs the `tests:` of a policy (Cerbos style): each input through the real evaluation, against the
// history and network answers the test declares (none by default: an empty history, network checks
// "not checked"), compared with the expected action, errors, warnings and fired checks. Nothing is stored.
import { noHistory } from '../engine/no-history.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decide.js';
import { type EvaluateOptions, type Evaluation, evaluate } from '../policy/evaluate.js';
import type { PolicyTest } from '../policy/types.js';
import { networkFromAnswers, TestHistory } from './policy-test-fixtures.js';

export interface PolicyTestResult {
  test: PolicyTest;
  passed: boolean;
  /** What differed, one line each. */
  failures: string[];
  /** The checks and free rules that fired (on_unknown:<check> for an on_unknown rule), as `expected.fired` names them. */
  fired: string[];
}

export async function runPolicyTests(policy: CompiledPolicy, now: () => number = Date.now): Promise<PolicyTestResult[]> {
  const history = new TestHistory();
  try {
    const results: PolicyTestResult[] = [];
    for (const [index, test] of policy.tests.entries()) {
      const { decision } = await evaluateWithFixtures(policy, test, history, index, now());
      const failures = differences(test, decision);
      results.push({ test, passed: failures.length === 0, failures, fired: firedNames(decision) });
    }
    return results;
  } finally {
    await history.close();
  }
}

/** What a policy test (or `policy explain --fixtures`) declares: an input, and optionally a history and network answers. */
export type FixtureRun = Pick<PolicyTest, 'input' | 'history' | 'network'>;

/** Evaluates one input against the world `run` declares (history under project `policy-test-<index>`), at time `at`. */
export async function evaluateWithFixtures(
  policy: CompiledPolicy,
  run: FixtureRun,
  history: TestHistory,
  index: number,
  at: number,
  options: EvaluateOptions = {},
): Promise<Evaluation<Decision>> {
  const velocity = run.history ? await history.reader(await history.project(index, run.history, at)) : noHistory;
  return evaluate(
    policy,
    {
      email: run.input.email_address,
      ipv4: run.input.ipv4_address ?? null,
      ipv6: run.input.ipv6_address ?? null,
      softCheck: true,
      projectId: 'policy-test',
      device: run.input.device ?? null,
    },
    { velocity, network: run.network ? networkFromAnswers(run.network, () => at) : undefined, now: () => at },
    options,
  );
}

function differences(test: PolicyTest, decision: Decision): string[] {
  const failures: string[] = [];
  const { action, errors, warnings, fired } = test.expected;
  if (action !== undefined && decision.action !== action) failures.push(`action: expected ${action}, got ${decision.action}`);
  const lists: [string, readonly string[] | undefined, readonly string[]][] = [
    ['errors', errors, decision.errors],
    ['warnings', warnings, decision.warnings],
    ['fired', fired, firedNames(decision)],
  ];
  for (const [what, expected, actual] of lists) {
    if (expected !== undefined && !sameMembers(expected, actual)) failures.push(`${what}: expected [${expected.join(', ')}], got [${actual.join(', ')}]`);
  }
  return failures;
}

function sameMembers(expected: readonly string[], actual: readonly string[]): boolean {
  const a = [...new Set(expected)].sort();
  const b = [...new Set(actual)].sort();
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function firedNames(decision: Decision): string[] {
  return decision.fired.map((v) => (v.source === 'unknown' ? `on_unknown:${v.name}` : v.name));
}
