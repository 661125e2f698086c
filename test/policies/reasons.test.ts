// Every action other than allow names its reason: under each shipped policy, each check and free rule that can
// change the action is made to fire, and the answer must carry at least one error or warning code, the firing
// check's own among them. A check added to a shipped policy without a row in shipped-policy-rows.ts fails the walk.
import { afterAll, describe, expect, it } from 'vitest';
import { TestHistory } from '../../src/service/policy-test-fixtures.js';
import { evaluateFor } from '../support/plugin-tester.js';
import { POLICIES, ROWS, rowInput } from './shipped-policy-rows.js';

const history = new TestHistory();
afterAll(() => history.close());

describe.each(POLICIES.map((policy) => [policy.name, policy] as const))('%s: every action other than allow carries a code', (_name, policy) => {
  const changing = [...policy.verdicts.values()].flat().filter((v) => v.action !== 'allow' && v.action !== 'none' && v.source !== 'unknown');
  const names = new Set(changing.map((v) => v.name));
  const rows = ROWS.filter((row) => names.has(row.fires));

  it('the table covers every check and free rule that can change the action', () => {
    expect(new Set(rows.map((r) => r.fires))).toEqual(names);
    for (const verdict of changing) expect(verdict.code, verdict.name).toBeTruthy();
  });

  it.each(rows.map((row, i) => [row.fires, row.ipv4 ? `${row.email} from ${row.ipv4}` : row.email, row, i] as const))(
    '%s (%s)',
    async (_fires, _email, row, i) => {
      const at = Date.now();
      const index = POLICIES.indexOf(policy) * 1000 + i;
      const velocity = row.history ? await history.reader(await history.project(index, row.history, at)) : undefined;
      const { decision } = await evaluateFor(policy, rowInput(row, `policy-test-${index}`, at), { network: row.network, velocity, now: () => at });
      const verdict = decision.fired.find((v) => v.name === row.fires);
      expect(verdict, `${row.fires} fired: ${decision.fired.map((v) => v.name).join(', ')}`).toBeDefined();
      expect(decision.action).not.toBe('allow');
      expect([...decision.errors, ...decision.warnings]).toContain(verdict?.code);
    },
  );
});
