// The intelligence verdict agrees with verify on every shipped policy: for every input that makes a check or
// rule of any shipped policy fire, where the policy's verify blocks, its POST /v1/intelligence rules (the
// policy's `intelligence:` section) block too; where verify allows, they do not block. Verify's middle actions
// (challenge, review, verification) have no counterpart in the verdict's allow/block/ignore: the verdict
// follows its own rules there (a listed typo domain such as gmial.com is blocked as disposable; the answer's
// without_typo_mismatch offers the correction). A block added to verify without its intelligence counterpart
// fails here.
import { afterAll, describe, expect, it } from 'vitest';
import { TestHistory } from '../../src/service/policy-test-fixtures.js';
import { evaluateFor, evaluateVerdictFor } from '../support/plugin-tester.js';
import { POLICIES, ROWS, type Row, rowInput } from './shipped-policy-rows.js';

/** Ordinary addresses every shipped policy allows. */
const ALLOWED: Row[] = [
  { fires: '(none)', email: 'jane.doe@example.com' },
  { fires: '(none)', email: 'jane+news@example.org' },
  { fires: '(none)', email: "o'brien-smith@example.co.uk" },
  { fires: '(none)', email: 'jane@example.com', network: { 'example.com': { mx: ['mx.example.net'], a: ['192.0.2.10'], registered: '2001-01-01' } } },
];

const history = new TestHistory();
afterAll(() => history.close());

describe.each(POLICIES.map((policy) => [policy.name, policy] as const))('%s: intelligence does not allow what verify blocks', (_name, policy) => {
  it.each([...ROWS, ...ALLOWED].map((row, i) => [row.fires, row.ipv4 ? `${row.email} from ${row.ipv4}` : row.email, row, i] as const))(
    '%s (%s)',
    async (_fires, _email, row, i) => {
      const at = Date.now();
      const index = POLICIES.indexOf(policy) * 1000 + i;
      const velocity = row.history ? await history.reader(await history.project(index, row.history, at)) : undefined;
      const input = rowInput(row, `consistency-${index}`, at);
      const opts = { network: row.network, velocity, now: () => at };
      const verify = await evaluateFor(policy, input, opts);
      const verdict = await evaluateVerdictFor(policy, input, opts);
      if (row.fires === '(none)') expect(verify.decision.action).toBe('allow');
      if (verify.decision.action === 'block') expect(verdict.decision.action, `verify blocks (${row.fires}); intelligence`).toBe('block');
      if (verify.decision.action === 'allow') expect(verdict.decision.action, 'verify allows; intelligence').not.toBe('block');
    },
  );
});
