// Creating a project with its keys, on both engines: the project comes with its three keys or not at
// all, and the demo project is made only on an empty database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys, ensureDemoProject } from '../../src/cli/projects.js';
import type { Store } from '../../src/store/database.js';
import { testDatabases } from '../support/databases.js';

describe.each(testDatabases)('projects with keys on $name', (db) => {
  let store: Store;
  beforeAll(async () => {
    store = await db.open();
  });
  afterAll(() => store.close());

  it('makes the demo project, with three working keys, on an empty database only', async () => {
    const demo = await ensureDemoProject(store);
    expect(demo?.project).toEqual({ id: expect.stringMatching(/^prj_/), name: 'demo', sandbox: true, policy: 'default' });
    for (const kind of ['access_token', 'private_key', 'public_key'] as const) {
      expect((await store.keys.authenticate(demo?.keys[kind] ?? '', kind))?.project.name).toBe('demo');
    }
    expect(await ensureDemoProject(store)).toBeNull();
  });

  it('leaves no project behind when its keys cannot be stored', async () => {
    await store.knex.schema.renameTable('api_keys', 'api_keys_away');
    try {
      await expect(createProjectWithKeys(store, { name: 'keyless', policy: 'default' })).rejects.toThrow();
    } finally {
      await store.knex.schema.renameTable('api_keys_away', 'api_keys');
    }
    expect(await store.projects.getByName('keyless')).toBeNull();
    const created = await createProjectWithKeys(store, { name: 'keyless', policy: 'default' });
    expect(await store.keys.list(created.project.id)).toHaveLength(3);
  });
});
