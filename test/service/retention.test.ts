// Velocity retention against a real SQLite store: old events and expired domain facts go, the rest stays.
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRetention } from '../../src/service/retention.js';
import type { Store } from '../../src/store/database.js';
import { openSqliteTestStore } from '../support/databases.js';

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;
const log = pino({ level: 'silent' });
let store: Store;

beforeEach(async () => {
  store = await openSqliteTestStore();
});
afterEach(() => store.close());

function event(email: string, ageDays: number) {
  return { projectId: 'prj_r', endpoint: 'verify', email, emailLower: email, baseEmail: email, action: 'allow', createdAt: NOW - ageDays * DAY };
}

describe('velocity retention', () => {
  it('deletes events older than the retention period and expired domain facts, nothing else', async () => {
    await Promise.all([event('old@x.io', 31), event('older@x.io', 400), event('recent@x.io', 29), event('today@x.io', 0)].map((e) => store.events.record(e)));
    await store.domainFacts.put('gone.example', 'dns:mx', { status: 'nxdomain' }, 1000, NOW - 10_000);
    await store.domainFacts.put('kept.example', 'dns:mx', { status: 'nxdomain' }, DAY, NOW);

    const retention = startRetention(store, { retentionDays: 30, intervalMs: 3_600_000, now: () => NOW, log });
    try {
      expect(await retention.runOnce()).toEqual({ events: 2, domainFacts: 1 });
      expect((await store.knex('events').orderBy('email').pluck('email')).sort()).toEqual(['recent@x.io', 'today@x.io']);
      expect(await store.knex('domain_facts').pluck('domain')).toEqual(['kept.example']);
      expect(await retention.runOnce()).toEqual({ events: 0, domainFacts: 0 });
    } finally {
      retention.stop();
    }
  });

  it('a shorter retention keeps less', async () => {
    await Promise.all([event('a@x.io', 2), event('b@x.io', 0)].map((e) => store.events.record(e)));
    const retention = startRetention(store, { retentionDays: 1, intervalMs: 3_600_000, now: () => NOW, log });
    try {
      expect((await retention.runOnce()).events).toBe(1);
    } finally {
      retention.stop();
    }
  });
});
