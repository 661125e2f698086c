// A project's own domain lists, on both engines: add, remove and clear in one transaction each, every
// change raising the project's lists revision; at most 100,000 entries a list; each project's lists its
// own; and the in-memory reader, which queries the database once per revision, not once per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { ListFullError, MAX_LIST_ENTRIES } from '../../src/store/project-lists.js';
import type { Project } from '../../src/store/projects.js';
import { openSecondStore, testDatabases } from '../support/databases.js';

describe.each(testDatabases)('project lists on $name', (db) => {
  let store: Store;
  let shop: Project;
  let other: Project;
  beforeAll(async () => {
    store = await db.open();
    shop = await store.projects.create({ name: 'shop', policy: 'default' });
    other = await store.projects.create({ name: 'other', policy: 'default' });
  });
  afterAll(() => store.close());

  const revision = async (project: Project) => (await store.projects.get(project.id))?.listsRevision;

  it('adds entries once each, counting those already listed, and raises the revision', async () => {
    expect(await revision(shop)).toBe(0);
    expect(await store.projectLists.add(shop.id, 'known-abuse', ['a.example', 'b.example', 'a.example'])).toEqual({ changed: 2, unchanged: 0, total: 2 });
    expect(await revision(shop)).toBe(1);
    expect(await store.projectLists.add(shop.id, 'known-abuse', ['b.example', 'c.example'])).toEqual({ changed: 1, unchanged: 1, total: 3 });
    expect(await revision(shop)).toBe(2);
    expect(await store.projectLists.entries(shop.id, 'known-abuse')).toEqual(['a.example', 'b.example', 'c.example']);
    expect(await store.projectLists.counts(shop.id)).toEqual({ 'known-abuse': 3 });
  });

  it('keeps each project and each list apart', async () => {
    await store.projectLists.add(other.id, 'known-abuse', ['z.example']);
    await store.projectLists.add(shop.id, 'spam-trap', ['a.example']);
    expect(await store.projectLists.entries(other.id, 'known-abuse')).toEqual(['z.example']);
    expect(await store.projectLists.counts(shop.id)).toEqual({ 'known-abuse': 3, 'spam-trap': 1 });
    expect(await store.projectLists.counts(other.id)).toEqual({ 'known-abuse': 1 });
  });

  it('removes entries, counting those not listed; clears one list or all', async () => {
    expect(await store.projectLists.remove(shop.id, 'known-abuse', ['a.example', 'nope.example'])).toEqual({ changed: 1, unchanged: 1, total: 2 });
    expect(await store.projectLists.clear(shop.id, 'spam-trap')).toBe(1);
    expect(await store.projectLists.counts(shop.id)).toEqual({ 'known-abuse': 2 });
    const before = await revision(shop);
    expect(await store.projectLists.clear(shop.id, null)).toBe(2);
    expect(await store.projectLists.counts(shop.id)).toEqual({});
    expect(await revision(shop)).toBe((before ?? 0) + 1);
    expect(await store.projectLists.counts(other.id)).toEqual({ 'known-abuse': 1 });
  });

  it(`holds at most ${MAX_LIST_ENTRIES} entries a list: a change past it writes nothing`, async () => {
    const domains = (from: number, count: number) => Array.from({ length: count }, (_, i) => `d${from + i}.example`);
    expect((await store.projectLists.add(shop.id, 'disposable', domains(0, MAX_LIST_ENTRIES - 1))).total).toBe(MAX_LIST_ENTRIES - 1);
    const full = store.projectLists.add(shop.id, 'disposable', domains(MAX_LIST_ENTRIES - 1, 2));
    await expect(full).rejects.toBeInstanceOf(ListFullError);
    await expect(full).rejects.toThrow(`the disposable list would hold ${MAX_LIST_ENTRIES + 1} entries; a list holds at most ${MAX_LIST_ENTRIES}`);
    expect(await store.projectLists.counts(shop.id)).toEqual({ disposable: MAX_LIST_ENTRIES - 1 });
    expect(await store.projectLists.add(shop.id, 'disposable', domains(0, 1).concat(domains(MAX_LIST_ENTRIES - 1, 1)))).toEqual({
      changed: 1,
      unchanged: 1,
      total: MAX_LIST_ENTRIES,
    });
    expect(await store.projectLists.clear(shop.id, 'disposable')).toBe(MAX_LIST_ENTRIES);
  });

  it("reads a project's lists from memory: one query per revision, none for a project that never had lists", async () => {
    const fresh = await store.projects.create({ name: 'reader', policy: 'default' });
    // Another store: a second service instance, whose cache this test watches.
    const service = await openSecondStore(store);
    const queries: string[] = [];
    service.knex.on('query', (q: { sql: string }) => void queries.push(q.sql));
    try {
      const read = async (project: Project, list: string) => [...(await service.projectLists.reader(project).entries(list))].sort();
      expect(await read(fresh, 'known-abuse')).toEqual([]);
      expect(queries).toEqual([]);

      await store.projectLists.add(fresh.id, 'known-abuse', ['x.example', 'y.example']);
      await store.projectLists.add(fresh.id, 'not-known-abuse', ['ok.x.example']);
      const changed = (await store.projects.get(fresh.id)) as Project;
      // Two concurrent requests after the change share one load.
      const [first, second] = await Promise.all([read(changed, 'known-abuse'), read(changed, 'not-known-abuse')]);
      expect([first, second]).toEqual([['x.example', 'y.example'], ['ok.x.example']]);
      expect(queries).toHaveLength(1);
      for (let i = 0; i < 20; i++) await read(changed, 'known-abuse');
      // A request still holding the older revision (its key lookup cached) is answered from memory too.
      expect(await read(fresh, 'known-abuse')).toEqual(['x.example', 'y.example']);
      expect(queries).toHaveLength(1);

      await store.projectLists.remove(fresh.id, 'known-abuse', ['x.example']);
      expect(await read(changed, 'known-abuse')).toEqual(['x.example', 'y.example']);
      expect(await read((await store.projects.get(fresh.id)) as Project, 'known-abuse')).toEqual(['y.example']);
      expect(queries).toHaveLength(2);
      expect(await read(shop, 'known-abuse')).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it('gives the revision with the project a key authenticates, which a list change makes this process read afresh', async () => {
    const { token } = await store.keys.create(other.id, 'access_token');
    const before = (await store.keys.authenticate(token, 'access_token'))?.project.listsRevision ?? -1;
    await store.projectLists.add(other.id, 'spam-trap', ['trap.example']);
    expect((await store.keys.authenticate(token, 'access_token'))?.project.listsRevision).toBe(before + 1);
  });
});
