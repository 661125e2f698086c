// The policy check thread: the real one answers as checkPolicy would (a checked document, a limit refused,
// problems); a stand-in speaking its protocol shows a check past its deadline or on a crashed thread answered
// as unavailable and the next one made on a new thread (the deadline counting the thread's CPU time, bounded in
// wall time), a check past the waiting ones refused at once, a
// thread that cannot start failing its checks without starting again and again, and close() failing the rest.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { createPolicyChecks, type PolicyChecks, PolicyCheckUnavailable } from '../../src/policy/check-thread.js';
import { PolicyError, PolicyLimitError } from '../../src/policy/errors.js';
import { DEEP_POLICIES, DEPTH_REFUSAL } from '../support/deep-policies.js';

const REAL = join(packageRoot, 'dist/src/cli/policy-check-worker.js');
const STAND_IN = fileURLToPath(new URL('../fixtures/threads/policy-check-worker.mjs', import.meta.url));
const open: PolicyChecks[] = [];
const checksWith = (options: Parameters<typeof createPolicyChecks>[0]) => {
  const checks = createPolicyChecks(options);
  open.push(checks);
  return checks;
};
afterEach(async () => {
  for (const checks of open.splice(0)) await checks.close();
});
const source = (text: string) => ({ name: 'p', file: 'p.yaml', text });

describe('the thread', () => {
  it('answers as checkPolicy: the checked document, a limit refused, the problems', async () => {
    const checks = checksWith({ workerFile: REAL });
    await expect(checks.check(source('version: "1.0"\nchecks:\n  local_plus: { mode: soft }\n'))).resolves.toMatchObject({
      name: 'p',
      revision: expect.stringMatching(/^[0-9a-f]{16}$/),
      document: { checks: { local_plus: { mode: 'soft' } } },
    });
    const limit = await checks.check(source(DEEP_POLICIES[0]?.[1] as string)).catch((error: unknown) => error);
    expect(limit).toBeInstanceOf(PolicyLimitError);
    expect((limit as PolicyLimitError).problem).toMatchObject({ file: 'p.yaml', line: 2, message: DEPTH_REFUSAL });
    const problems = await checks.check(source('version: "1.0"\nchecks:\n  local_plus: { mode: sometimes }\n')).catch((error: unknown) => error);
    expect(problems).toBeInstanceOf(PolicyError);
    expect((problems as PolicyError).problems).toMatchObject([{ line: 3, path: '/checks/local_plus/mode' }]);
  });
});

describe('when a check cannot be made', () => {
  it('past its deadline: answered unavailable, and the next check is made on a new thread', async () => {
    const checks = checksWith({ workerFile: STAND_IN, deadlineMs: 100 });
    await expect(checks.check(source('hang'))).rejects.toThrow(new PolicyCheckUnavailable('checking the policy took longer than 100 ms; retry'));
    await expect(checks.check(source('next'))).resolves.toMatchObject({ revision: 'next' });
  });

  it("its deadline counts the thread's CPU time: a check asleep for 3 deadlines (waiting, as for a busy core) is answered", async () => {
    const checks = checksWith({ workerFile: STAND_IN, deadlineMs: 100 });
    await expect(checks.check(source('sleep 300'))).resolves.toMatchObject({ revision: 'sleep 300' });
  });

  it('past 5 deadlines in wall time, however little CPU it used: answered unavailable, and the next check made', async () => {
    const checks = checksWith({ workerFile: STAND_IN, deadlineMs: 100 });
    await expect(checks.check(source('sleep 5000'))).rejects.toThrow(
      new PolicyCheckUnavailable('checking the policy took longer than 500 ms (the machine is busy); retry'),
    );
    await expect(checks.check(source('next'))).resolves.toMatchObject({ revision: 'next' });
  });

  it('on a thread that crashed: answered unavailable, and the next check is made on a new thread', async () => {
    const checks = checksWith({ workerFile: STAND_IN });
    await expect(checks.check(source('crash'))).rejects.toThrow(/^the policy check thread failed: the thread crashed; retry$/);
    await expect(checks.check(source('next'))).resolves.toMatchObject({ revision: 'next' });
  });

  it('past the checks waiting: refused at once, the others made in turn', async () => {
    const checks = checksWith({ workerFile: STAND_IN, waitingAtMost: 2 });
    const first = checks.check(source('a'));
    const second = checks.check(source('b'));
    await expect(checks.check(source('c'))).rejects.toThrow(new PolicyCheckUnavailable('2 policy checks are waiting already; retry in 1 s'));
    expect((await Promise.all([first, second])).map((c) => c.revision)).toEqual(['a', 'b']);
  });

  it('on a thread that cannot start: each check answered unavailable, none waiting for ever', async () => {
    const checks = checksWith({ workerFile: join(packageRoot, 'no-such-worker.js') });
    const both = await Promise.allSettled([checks.check(source('a')), checks.check(source('b'))]);
    expect(both.map((o) => o.status === 'rejected' && o.reason instanceof PolicyCheckUnavailable)).toEqual([true, true]);
    await expect(checks.check(source('c'))).rejects.toBeInstanceOf(PolicyCheckUnavailable);
  });

  it('when closed: the check running and those waiting answered unavailable', async () => {
    const checks = checksWith({ workerFile: STAND_IN });
    await checks.check(source('started'));
    // The thread is up: the first is sent to it at once (and never answered), the second waits.
    const both = Promise.allSettled([checks.check(source('hang')), checks.check(source('b'))]);
    await checks.close();
    expect((await both).map((o) => o.status === 'rejected' && o.reason instanceof PolicyCheckUnavailable)).toEqual([true, true]);
    await expect(checks.check(source('c'))).rejects.toThrow('the service is stopping');
  });
});
