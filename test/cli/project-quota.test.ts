// `email-trust project set-quota` warns when this month's counted calls have already reached the new quota
// (issue 46, point 7): every call would be refused until the month renews, which an operator lowering a
// quota should hear at once, on stderr (stdout stays the command's answer, its JSON parseable).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { nextMonthStart } from '../../src/service/quota.js';
import { openDatabase } from '../../src/store/database.js';
import { monthOf } from '../../src/store/usage.js';
import { runCli } from '../support/cli-run.js';

const CALLS = 5;

describe(`project set-quota on a project with ${CALLS} counted calls this month`, () => {
  let dir: string;
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-set-quota-'));
    process.env.DATABASE_URL = `sqlite:${join(dir, 'quota.sqlite')}`;
    const store = await openDatabase(process.env.DATABASE_URL);
    try {
      await store.migrate();
      const { project } = await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
      await createProjectWithKeys(store, { name: 'play', policy: 'default', sandbox: true });
      for (let n = 0; n < CALLS; n++) {
        const email = `user${n}@example.com`;
        await store.events.record({
          projectId: project.id,
          endpoint: 'verify',
          email,
          emailLower: email,
          baseEmail: email,
          action: 'allow',
          countsTowardQuota: true,
        });
      }
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await rm(dir, { recursive: true, force: true });
  });

  const month = monthOf(Date.now());
  const renews = new Date(nextMonthStart(Date.now())).toISOString();

  it('warns on stderr when the new quota is below this month’s count, and still sets it', async () => {
    const run = await runCli('project', 'set-quota', 'shop', '3');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/has a monthly quota of 3 calls/);
    expect(run.err).toContain(
      `warning: this month (${month}) the project has already made ${CALLS} counted calls, past the new quota of 3: its verify and intelligence calls are refused (429) until ${renews}`,
    );
    const usage = JSON.parse((await runCli('project', 'usage', 'shop', '--json')).out);
    expect(usage.monthly_quota).toBe(3);
  });

  it('warns when the new quota equals the count, and says so in --json', async () => {
    const run = await runCli('project', 'set-quota', 'shop', String(CALLS), '--json');
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.out);
    expect(answer).toMatchObject({ monthly_quota: CALLS, month: { month, calls: CALLS } });
    expect(answer.warning).toMatch(new RegExp(`already made ${CALLS} counted calls, the whole new quota of ${CALLS}`));
    expect(run.err).toContain(`warning: ${answer.warning}`);
  });

  it.each([
    { what: 'a quota above the count', args: ['shop', String(CALLS + 1)] },
    { what: 'no quota', args: ['shop', '--none'] },
    { what: 'a sandbox project (its calls never count)', args: ['play', '0'] },
  ])('does not warn for $what', async ({ args }) => {
    const run = await runCli('project', 'set-quota', ...args);
    expect(run.code).toBe(0);
    expect(run.err).not.toMatch(/warning/);
    if (args[1] !== '--none') expect(JSON.parse((await runCli('project', 'set-quota', ...args, '--json')).out).warning).toBeUndefined();
  });
});
