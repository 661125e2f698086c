// Reputation reads of a project without labels cost no statement (store/labels.ts LabelPresence), on both
// databases: the first read asks once whether the project has any, later ones trust the answer; a label this
// process writes is counted at once, one another instance writes within NO_LABELS_TTL_MS (asked again in
// the background, no read waiting on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { knexReads } from '../../src/store/events.js';
import { createLabels, NO_LABELS_TTL_MS } from '../../src/store/labels.js';
import type { Reads } from '../../src/store/velocity-queries.js';
import { testDatabases } from '../support/databases.js';
import { labelFor } from '../support/labels.js';

const NOW = Date.UTC(2026, 11, 3, 12);

describe.each(testDatabases)('label presence on $name', (db) => {
  let store: Store;
  let statements: string[];
  let reads: Reads;
  beforeAll(async () => {
    store = await db.open();
    const inner = knexReads(store.knex);
    statements = [];
    reads = {
      all: (statement) => {
        statements.push(statement.sql);
        return inner.all(statement);
      },
    };
  });
  afterAll(() => store.close());

  const query = (at: number) => ({ baseEmail: 'a@shop.com', domain: 'shop.com', ipv4: '203.0.113.9', ipv6: null, device: null, windowDays: 30, now: at });

  it('asks once for a project without labels, then reads nothing until another instance labels it and the answer is old', async () => {
    const projectId = (await store.projects.create({ name: 'quiet', policy: 'default' }, NOW)).id;
    const labels = createLabels(store.knex, reads);
    const reader = labels.reputationReader([projectId]);

    expect((await reader.read(query(NOW))).domain).toMatchObject({ fraud: { window: 0, total: 0 } });
    expect(statements).toEqual(['select 1 as found from label_counts where project_id = ? limit 1']);
    statements.length = 0;
    await reader.read(query(NOW + 1_000));
    expect(statements).toEqual([]);

    // Another instance (its own store objects) labels an address of the domain.
    await store.labels.record(labelFor(projectId, 'b@shop.com', NOW), NOW);
    expect((await reader.read(query(NOW + NO_LABELS_TTL_MS - 1))).domain?.fraud).toEqual({ window: 0, total: 0 });
    expect(statements).toEqual([]);

    // Past the time the answer is trusted: asked again in the background, this read still answered from it.
    expect((await reader.read(query(NOW + NO_LABELS_TTL_MS))).domain?.fraud).toEqual({ window: 0, total: 0 });
    expect(statements).toEqual(['select 1 as found from label_counts where project_id = ? limit 1']);
    await expect.poll(async () => (await reader.read(query(NOW + NO_LABELS_TTL_MS + 1))).domain?.fraud).toEqual({ window: 1, total: 1 });
    expect(statements.slice(1).every((sql) => sql.startsWith('select project_id, kind, subject, day, label, count from label_counts'))).toBe(true);
  });

  it('counts a label this process writes at once', async () => {
    const projectId = (await store.projects.create({ name: 'fresh', policy: 'default' }, NOW)).id;
    const labels = createLabels(store.knex, reads);
    const reader = labels.reputationReader([projectId]);
    await reader.read(query(NOW));
    await labels.record(labelFor(projectId, 'c@shop.com', NOW), NOW);
    expect((await reader.read(query(NOW + 1))).domain?.fraud).toEqual({ window: 1, total: 1 });
  });
});
