import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { ProjectNameTakenError } from '../../src/store/projects.js';
import { openSecondStore, testDatabases } from '../support/databases.js';

describe.each(testDatabases)('projects on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('creates a project and stores its row', async () => {
    const project = await store.projects.create({ name: 'shop', policy: 'default' }, 1_700_000_000_123);
    expect(project).toEqual({
      id: expect.stringMatching(/^prj_[0-9a-f]{24}$/),
      name: 'shop',
      sandbox: false,
      policy: 'default',
      policySource: null,
      allowedOrigins: [],
      listsRevision: 0,
      monthlyQuota: null,
      sharesReputation: true,
      createdAt: 1_700_000_000_123,
    });
    const row = await store.knex('projects').where({ id: project.id }).first();
    expect(row).toMatchObject({ name: 'shop', policy: 'default', policy_source: null });
    expect(Number(row.created_at)).toBe(1_700_000_000_123);
  });

  it('gets by id and by name; null when absent', async () => {
    const project = await store.projects.create({ name: 'lab', policy: 'strict', sandbox: true, policySource: 'version: "1.0"\n' });
    expect(await store.projects.get(project.id)).toEqual(project);
    expect(await store.projects.getByName('lab')).toEqual(project);
    expect(project.sandbox).toBe(true);
    expect(await store.projects.get('prj_nope')).toBeNull();
    expect(await store.projects.getByName('nope')).toBeNull();
  });

  it('refuses a second project with the same name', async () => {
    await store.projects.create({ name: 'twin', policy: 'default' });
    await expect(store.projects.create({ name: 'twin', policy: 'default' })).rejects.toBeInstanceOf(ProjectNameTakenError);
  });

  it('lists projects oldest first', async () => {
    const names = (await store.projects.list()).map((p) => p.name);
    expect(names.slice(0, 1)).toEqual(['shop']);
    expect(names).toEqual(expect.arrayContaining(['shop', 'lab', 'twin']));
    expect(names).toHaveLength(3);
  });

  it('updates policy and sandbox', async () => {
    const project = await store.projects.create({ name: 'mutable', policy: 'default' });
    const updated = await store.projects.update(project.id, { policy: 'strict', policySource: 'x: 1\n', sandbox: true });
    expect(updated).toEqual({ ...project, policy: 'strict', policySource: 'x: 1\n', sandbox: true });
    expect(await store.projects.get(project.id)).toEqual(updated);
    expect(await store.projects.update('prj_nope', { policy: 'x' })).toBeNull();
  });

  it('a named policy replaces a file policy: the stored source is cleared', async () => {
    const project = await store.projects.create({ name: 'from-file', policy: 'plus', policySource: 'version: "1.0"\n' });
    const updated = await store.projects.update(project.id, { policy: 'default', policySource: null });
    expect(updated).toEqual({ ...project, policy: 'default', policySource: null });
    const row = await store.knex('projects').where({ id: project.id }).first();
    expect(row).toMatchObject({ policy: 'default', policy_source: null });
  });

  it('an update without changes returns the project as it is', async () => {
    const project = await store.projects.create({ name: 'steady', policy: 'default' });
    expect(await store.projects.update(project.id, {})).toEqual(project);
  });

  it('stores allowed origins, clears them with an empty list, and answers which origins any project allows', async () => {
    const project = await store.projects.create({ name: 'browser', policy: 'default' });
    expect(await store.projects.anyAllowsOrigin('https://shop.example')).toBe(false);
    const updated = await store.projects.update(project.id, { allowedOrigins: ['https://shop.example', 'http://localhost:3000'] });
    expect(updated?.allowedOrigins).toEqual(['https://shop.example', 'http://localhost:3000']);
    expect(await store.projects.get(project.id)).toEqual(updated);
    expect(await store.projects.anyAllowsOrigin('https://shop.example')).toBe(true);
    expect(await store.projects.anyAllowsOrigin('https://shop.example.evil')).toBe(false);
    const { token } = await store.keys.create(project.id, 'public_key');
    expect((await store.keys.authenticate(token, 'public_key'))?.project.allowedOrigins).toEqual(['https://shop.example', 'http://localhost:3000']);

    await store.projects.update(project.id, { allowedOrigins: [] });
    const row = await store.knex('projects').where({ id: project.id }).first();
    expect(row.allowed_origins).toBeNull();
    expect((await store.projects.get(project.id))?.allowedOrigins).toEqual([]);
    expect(await store.projects.anyAllowsOrigin('https://shop.example')).toBe(false);
  });

  it('another process sees a changed origin list within 5 s', async () => {
    const project = await store.projects.create({ name: 'origins-elsewhere', policy: 'default' });
    const elsewhere = await openSecondStore(store);
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(1_800_000_100_000);
      expect(await elsewhere.projects.anyAllowsOrigin('https://late.example')).toBe(false);
      await store.projects.update(project.id, { allowedOrigins: ['https://late.example'] });
      vi.setSystemTime(1_800_000_104_000);
      expect(await elsewhere.projects.anyAllowsOrigin('https://late.example')).toBe(false); // still cached
      vi.setSystemTime(1_800_000_105_001);
      expect(await elsewhere.projects.anyAllowsOrigin('https://late.example')).toBe(true);
    } finally {
      vi.useRealTimers();
      await elsewhere.close();
    }
  });

  it('is seen at once by this process, and within 5 s by another one holding cached key lookups', async () => {
    const project = await store.projects.create({ name: 'seen', policy: 'default' });
    const { token } = await store.keys.create(project.id, 'access_token');
    const elsewhere = await openSecondStore(store);
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(1_800_000_000_000);
      expect((await elsewhere.keys.authenticate(token, 'access_token'))?.project.policy).toBe('default');
      await store.projects.update(project.id, { policy: 'strict' });
      expect((await store.keys.authenticate(token, 'access_token'))?.project.policy).toBe('strict');
      vi.setSystemTime(1_800_000_004_000);
      expect((await elsewhere.keys.authenticate(token, 'access_token'))?.project.policy).toBe('default'); // still cached
      vi.setSystemTime(1_800_000_005_001);
      expect((await elsewhere.keys.authenticate(token, 'access_token'))?.project.policy).toBe('strict');
    } finally {
      vi.useRealTimers();
      await elsewhere.close();
    }
  });
});
