// `email-trust project set-reputation-sharing`: a project opts out of the deployment's shared reputation
// (SHARED_REPUTATION=on) and back in; the store keeps the choice and services read it with the project.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { runCli } from '../support/cli-run.js';

describe('project set-reputation-sharing', () => {
  let dir: string;
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-sharing-'));
    process.env.DATABASE_URL = `sqlite:${join(dir, 'sharing.sqlite')}`;
    const store = await openDatabase(process.env.DATABASE_URL);
    try {
      await store.migrate();
      await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await rm(dir, { recursive: true, force: true });
  });

  const sharing = async () => {
    const store = await openDatabase(process.env.DATABASE_URL as string);
    try {
      return (await store.projects.getByName('shop'))?.sharesReputation;
    } finally {
      await store.close();
    }
  };

  it('opts a project out and back in, saying when the deployment does not share at all', async () => {
    expect(await sharing()).toBe(true);
    const off = await runCli('project', 'set-reputation-sharing', 'shop', 'off');
    expect(off.code).toBe(0);
    expect(off.out).toMatch(/"shop" \(prj_[^)]+\) does not share its reputation \(SHARED_REPUTATION is off here/);
    expect(await sharing()).toBe(false);
    expect(JSON.parse((await runCli('project', 'show', 'shop', '--json')).out)).toMatchObject({ shares_reputation: false });
    expect((await runCli('project', 'show', 'shop')).out).toContain('sharing   does not share its reputation');
    const on = JSON.parse((await runCli('project', 'set-reputation-sharing', 'shop', 'on', '--json')).out);
    expect(on).toMatchObject({ project: { name: 'shop' }, shares_reputation: true, shared_reputation: false });
    expect(await sharing()).toBe(true);
  });

  it('refuses anything but on or off, and an unknown project', async () => {
    const bad = await runCli('project', 'set-reputation-sharing', 'shop', 'maybe');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/give on or off/);
    const unknown = await runCli('project', 'set-reputation-sharing', 'nobody', 'off');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err).toMatch(/no project named or with id "nobody"/);
  });
});
