// Every action other than allow names its reason: each check and free rule of the default policy that can
// change the action is made to fire here, and the answer must carry at least one error or warning code,
// the firing check's own among them. A check added to the default policy without a row here fails the walk.
import { afterAll, describe, expect, it } from 'vitest';
import { TestHistory } from '../../src/service/policy-test-fixtures.js';
import { evaluateFor } from '../support/plugin-tester.js';
import { policy, ROWS } from './default-policy-rows.js';

const history = new TestHistory();
afterAll(() => history.close());

describe('default policy: every action other than allow carries a code', () => {
  it('the table covers every check and free rule that can change the action', () => {
    const changing = [...policy.verdicts.values()].flat().filter((v) => v.action !== 'allow' && v.action !== 'none' && v.source !== 'unknown');
    expect(new Set(ROWS.map((r) => r.fires))).toEqual(new Set(changing.map((v) => v.name)));
    for (const verdict of changing) expect(verdict.code, verdict.name).toBeTruthy();
  });

  it.each(ROWS.map((row, i) => [row.fires, row.email, row, i] as const))('%s (%s)', async (_name, _email, row, i) => {
    const at = Date.now();
    const velocity = row.history ? await history.reader(await history.project(i, row.history, at)) : undefined;
    const { decision } = await evaluateFor(
      policy,
      { email: row.email, ipv4: row.ipv4 ?? null, projectId: `policy-test-${i}` },
      { network: row.network, velocity, now: () => at },
    );
    const verdict = decision.fired.find((v) => v.name === row.fires);
    expect(verdict, `${row.fires} fired: ${decision.fired.map((v) => v.name).join(', ')}`).toBeDefined();
    expect(decision.action).not.toBe('allow');
    expect([...decision.errors, ...decision.warnings]).toContain(verdict?.code);
  });
});
