import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { addressSubject, DAY_MS, eventSubject, type NewLabel, SHARED_PROJECT } from '../../src/store/labels.js';
import { testDatabases } from '../support/databases.js';

const NOW = Date.UTC(2026, 11, 3, 12);

describe.each(testDatabases)('labels on $name', (db) => {
  let store: Store;
  let projectId: string;
  let otherId: string;

  beforeAll(async () => {
    store = await db.open();
    projectId = (await store.projects.create({ name: 'shop', policy: 'default' })).id;
    otherId = (await store.projects.create({ name: 'blog', policy: 'default' })).id;
  });
  afterAll(() => store.close());

  const label = (over: Partial<NewLabel> = {}): NewLabel => ({
    projectId,
    subject: eventSubject(1),
    eventId: 1,
    decisionId: null,
    email: 'Jane.Doe+x@Example.com',
    baseEmail: 'jane.doe@example.com',
    domain: 'example.com',
    ipv4: '203.0.113.7',
    ipv6: null,
    device: 'dev1',
    label: 'fraud',
    note: null,
    source: 'api',
    labelledAt: NOW,
    shared: true,
    ...over,
  });

  const counts = (kind: 'email' | 'domain' | 'network' | 'device', subject: string, projectIds = [projectId], windowDays = 30, now = NOW) =>
    store.labels.counts({ kind, subject, projectIds, windowDays, now });

  it('creates a label, then answers the same label unchanged, writing nothing', async () => {
    const first = await store.labels.record(label(), NOW);
    expect(first.outcome).toBe('created');
    expect(first.label).toMatchObject({ label: 'fraud', revision: 1, subject: 'event:1', domain: 'example.com' });
    const again = await store.labels.record(label(), NOW + 1000);
    expect(again.outcome).toBe('unchanged');
    expect(again.label.revision).toBe(1);
    expect(await store.labels.history(projectId, 'event:1')).toHaveLength(1);
    expect((await counts('domain', 'example.com')).fraud).toEqual({ window: 1, total: 1 });
  });

  it('replaces a label, keeping both in history and moving the counters', async () => {
    const changed = await store.labels.record(label({ label: 'legitimate', note: 'a real customer' }), NOW + 2000);
    expect(changed.outcome).toBe('replaced');
    expect(changed.label).toMatchObject({ label: 'legitimate', note: 'a real customer', revision: 2 });
    expect((await store.labels.history(projectId, 'event:1')).map((h) => h.label)).toEqual(['fraud', 'legitimate']);
    const domain = await counts('domain', 'example.com');
    expect(domain.fraud).toEqual({ window: 0, total: 0 });
    expect(domain.legitimate).toEqual({ window: 1, total: 1 });
    expect((await counts('network', '203.0.113.0/24')).legitimate.total).toBe(1);
    expect((await counts('device', 'dev1')).legitimate.total).toBe(1);
    expect((await counts('email', 'jane.doe@example.com')).legitimate.total).toBe(1);
  });

  it('counts a label in its day: outside a window it counts only in the total', async () => {
    await store.labels.record(
      label({
        subject: addressSubject('old@example.com', null),
        eventId: null,
        baseEmail: 'old@example.com',
        ipv4: null,
        device: null,
        labelledAt: NOW - 40 * DAY_MS,
      }),
      NOW,
    );
    const domain = await counts('domain', 'example.com');
    expect(domain.fraud).toEqual({ window: 0, total: 1 });
    expect((await counts('domain', 'example.com', [projectId], 60)).fraud.window).toBe(1);
  });

  it('keeps projects apart, and adds up the shared counts of those that share', async () => {
    expect((await counts('domain', 'example.com', [otherId])).fraud.total).toBe(0);
    await store.labels.record(label({ projectId: otherId, shared: false }), NOW);
    await store.labels.record(label({ projectId: otherId, subject: eventSubject(2), eventId: 2, label: 'spam_trap', shared: true }), NOW);
    expect((await counts('domain', 'example.com', [otherId])).fraud.total).toBe(1);
    const shared = await counts('domain', 'example.com', [SHARED_PROJECT]);
    // Shared: this project's old fraud label (shared) and the other's spam_trap; not the other's unshared fraud.
    expect(shared.fraud.total).toBe(1);
    expect(shared.spam_trap.total).toBe(1);
    expect(shared.legitimate.total).toBe(1);
  });

  it('lists a project’s labels newest first, and finds the labels of events', async () => {
    const listed = await store.labels.list({ projectId, limit: 10 });
    expect(listed.map((l) => l.subject)).toEqual(['event:1', 'address:old@example.com']);
    expect(await store.labels.list({ projectId, label: 'fraud', limit: 10 })).toHaveLength(1);
    const found = await store.labels.forEvents(projectId, [
      { id: 1, baseEmail: 'jane.doe@example.com', ipv4: null, ipv6: null },
      { id: 7, baseEmail: 'old@example.com', ipv4: '198.51.100.1', ipv6: null },
      { id: 8, baseEmail: 'nobody@example.com', ipv4: null, ipv6: null },
    ]);
    expect([...found.entries()]).toEqual([
      [1, 'legitimate'],
      [7, 'fraud'],
    ]);
  });

  it('two changes of one subject at once: both land in history, the counters count one label', async () => {
    const subject = eventSubject(50);
    const results = await Promise.all([
      store.labels.record(label({ subject, eventId: 50, domain: 'race.test', label: 'abuse' }), NOW),
      store.labels.record(label({ subject, eventId: 50, domain: 'race.test', label: 'chargeback' }), NOW),
    ]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['created', 'replaced']);
    const race = await counts('domain', 'race.test');
    expect(race.abuse.total + race.chargeback.total).toBe(1);
    expect(await store.labels.history(projectId, subject)).toHaveLength(2);
  });
});
