// Runs the `tests:` of a policy (Cerbos style): each input through the real evaluation, nothing stored,
// against an empty history, compared with the expected action, errors and warnings.
import type { VelocityReader } from '../engine/plugin.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { decide } from '../policy/decide.js';
import type { PolicyTest } from '../policy/types.js';

export interface PolicyTestResult {
  test: PolicyTest;
  passed: boolean;
  /** What differed, one line each. */
  failures: string[];
}

const emptyHistory: VelocityReader = {
  byIp: async ({ since }) => ({ emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) }),
};

export async function runPolicyTests(policy: CompiledPolicy, now: () => number = Date.now): Promise<PolicyTestResult[]> {
  const results: PolicyTestResult[] = [];
  for (const test of policy.tests) {
    const outcome = await policy.runner.run({
      input: {
        email: test.input.email_address,
        ipv4: test.input.ipv4_address ?? null,
        ipv6: test.input.ipv6_address ?? null,
        softCheck: true,
        projectId: 'policy-test',
      },
      options: policy.options,
      services: { velocity: emptyHistory, now },
    });
    const decision = decide(policy, outcome.ruleResults);
    const failures: string[] = [];
    const { action, errors, warnings } = test.expected;
    if (action !== undefined && decision.action !== action) failures.push(`action: expected ${action}, got ${decision.action}`);
    if (errors !== undefined && !sameCodes(errors, decision.errors))
      failures.push(`errors: expected [${errors.join(', ')}], got [${decision.errors.join(', ')}]`);
    if (warnings !== undefined && !sameCodes(warnings, decision.warnings)) {
      failures.push(`warnings: expected [${warnings.join(', ')}], got [${decision.warnings.join(', ')}]`);
    }
    results.push({ test, passed: failures.length === 0, failures });
  }
  return results;
}

function sameCodes(expected: readonly string[], actual: readonly string[]): boolean {
  return expected.length === actual.length && [...expected].sort().every((code, i) => code === [...actual].sort()[i]);
}
