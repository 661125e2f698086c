// Runs the `tests:` of a policy (Cerbos style): each input through the verify pipeline (verifyWith, with
// show_results), against the history, labels and network answers the test declares (none by default: an
// empty history, no labels, network checks "not checked"), compared with what the test expects: action, errors, warnings,
// flags, corrected_email, risk_level, risk_score, the checks and rules that fired and the exemptions that
// applied. Nothing is stored.
import { noHistory } from '../engine/no-history.js';
import type { ProjectListReader } from '../engine/plugin.js';
import type { RunServices } from '../engine/run.js';
import { OFFLINE } from '../network/offline.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decide.js';
import { type EvaluateOptions, type Evaluation, evaluate } from '../policy/evaluate.js';
import type { Explanation } from '../policy/explain.js';
import { EXPECTED_FIELDS, isFlagKey } from '../policy/test-expectations.js';
import type { PolicyTest } from '../policy/types.js';
import { storedForms } from './address-forms.js';
import { fingerprintOfTest, networkFromAnswers, TestHistory } from './policy-test-fixtures.js';
import { type VerifyResponse, verifyWith } from './verify.js';

export interface PolicyTestResult {
  test: PolicyTest;
  passed: boolean;
  /** What differed, one line each. */
  failures: string[];
  /** The checks and free rules that fired (on_unknown:<check> for an on_unknown rule), as `expected.fired` names them. */
  fired: string[];
  /** The exemptions that applied, as `expected.exemptions` names them. */
  exemptions: string[];
  /** Why the answer was what it was (what fired, the facts each condition saw): kept for a failed test. */
  explanation?: Explanation;
}

const POLICY_TEST_PROJECT = 'policy-test';

export async function runPolicyTests(policy: CompiledPolicy, now: () => number = Date.now): Promise<PolicyTestResult[]> {
  const history = new TestHistory();
  try {
    const results: PolicyTestResult[] = [];
    for (const [index, test] of policy.tests.entries()) {
      const at = now();
      const request = {
        email_address: test.input.email_address,
        ...(test.input.ipv4_address === undefined ? {} : { ipv4_address: test.input.ipv4_address }),
        ...(test.input.ipv6_address === undefined ? {} : { ipv6_address: test.input.ipv6_address }),
        soft_check: true,
        show_results: true,
        show_explain: true,
      };
      const services = await fixtureServices(policy, test, history, index, at);
      const run = { projectId: POLICY_TEST_PROJECT, device: test.input.device ?? null, fingerprint: fingerprintOfTest(test.input, at), services };
      const { evaluation, response } = await verifyWith(policy, request, run);
      const fired = firedNames(evaluation.decision);
      const failures = differences(test, response, fired, evaluation.decision.exemptions);
      const passed = failures.length === 0;
      const { exemptions } = evaluation.decision;
      results.push({ test, passed, failures, fired, exemptions, ...(passed ? {} : { explanation: evaluation.explanation }) });
    }
    return results;
  } finally {
    await history.close();
  }
}

/** What a policy test (or `policy explain --fixtures`) declares: an input, and optionally a history and network answers. */
export type FixtureRun = Pick<PolicyTest, 'input' | 'history' | 'labels' | 'network' | 'blocklists' | 'lists'>;

/** Evaluates one input against the world `run` declares (history under project `policy-test-<index>`), at time `at`. */
export async function evaluateWithFixtures(
  policy: CompiledPolicy,
  run: FixtureRun,
  history: TestHistory,
  index: number,
  at: number,
  options: EvaluateOptions = {},
): Promise<Evaluation<Decision>> {
  return evaluate(
    policy,
    {
      email: run.input.email_address,
      ipv4: run.input.ipv4_address ?? null,
      ipv6: run.input.ipv6_address ?? null,
      softCheck: true,
      projectId: POLICY_TEST_PROJECT,
      device: run.input.device ?? null,
      fingerprint: fingerprintOfTest(run.input, at),
    },
    await fixtureServices(policy, run, history, index, at),
    options,
  );
}

/** The history, labels, network and clock `run` declares. */
async function fixtureServices(policy: CompiledPolicy, run: FixtureRun, history: TestHistory, index: number, at: number): Promise<RunServices> {
  const velocity = run.history ? await history.reader(await history.project(index, run.history, at)) : noHistory;
  const network = run.network || run.blocklists ? networkFromAnswers(run.network ?? {}, () => at, run.blocklists) : OFFLINE;
  // Labels are counted under the forms verify stores an address under (its base address and domain).
  const reputation = run.labels ? await history.labelled(index, run.labels, (email) => storedForms(policy, email), at) : undefined;
  return { velocity, network, ...(reputation ? { reputation } : {}), ...(run.lists ? { lists: listsOf(run.lists) } : {}), now: () => at };
}

/** A test's project lists as the store hands them to plugins. */
function listsOf(lists: Readonly<Record<string, readonly string[]>>): ProjectListReader {
  const sets = new Map(Object.entries(lists).map(([name, entries]) => [name, new Set(entries)]));
  const none: ReadonlySet<string> = new Set();
  return { entries: async (list) => sets.get(list) ?? none };
}

function differences(test: PolicyTest, response: VerifyResponse, fired: readonly string[], exemptions: readonly string[]): string[] {
  const failures: string[] = [];
  const { action, errors, warnings } = test.expected;
  if (action !== undefined && response.action !== action) failures.push(`action: expected ${action}, got ${response.action}`);
  const lists: [string, readonly string[] | undefined, readonly string[]][] = [
    ['errors', errors, response.errors ?? []],
    ['warnings', warnings, response.warnings ?? []],
    ['fired', test.expected.fired, fired],
    ['exemptions', test.expected.exemptions, exemptions],
  ];
  for (const [what, expected, actual] of lists) {
    if (expected !== undefined && !sameMembers(expected, actual)) failures.push(`${what}: expected [${expected.join(', ')}], got [${actual.join(', ')}]`);
  }
  // Flags and fields: absent from the answer compares as null (no correction, no risk level, not checked).
  for (const [key, expected] of Object.entries(test.expected)) {
    if (!isFlagKey(key) && !(EXPECTED_FIELDS as readonly string[]).includes(key)) continue;
    const actual = response[key] ?? null;
    if (actual !== expected) failures.push(`${key}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
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
