// The reputation read stays bounded however many labels a project has: after 100,000 labels (their counters
// bulk-inserted as record() writes them, which a test of a few labels shows), one statement reads at most
// subjects × projects × (window + 1) days × labels rows, through label_counts's primary key, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.js';
import { knexReads } from '../../src/store/events.js';
import {
  countedSubjects,
  createLabels,
  DAY_MS,
  dayOf,
  LABELS,
  type NewLabel,
  type ReputationCountsQuery,
  reputationStatement,
  SHARED_PROJECT,
  TOTAL_DAY,
} from '../../src/store/labels.js';
import { testDatabases } from '../support/databases.js';
import { labelFor } from '../support/labels.js';

const NOW = Date.UTC(2026, 11, 3, 12);
const LABELLED = 100_000;
/** The busiest domain: one label in ten, on every one of 400 days with every label (dense: the worst case of a window read). */
const BUSY = 'busy-shop.com';

/** The i-th of the generated labels: spread over 400 days (ten a day in turn), 7 labels, 5,000 domains, 1,000 networks and 2,000 devices; every other one shared. */
function generated(projectId: string, i: number): NewLabel {
  const domain = i % 10 === 0 ? BUSY : `d${i % 5000}.com`;
  return labelFor(projectId, `u${i}@${domain}`, NOW - (Math.floor(i / 10) % 400) * DAY_MS, {
    label: LABELS[i % LABELS.length],
    ipv4: `10.${Math.floor((i % 1000) / 250)}.${i % 250}.${i % 7}`,
    device: `dev${i % 2000}`,
    shared: i % 2 === 0,
  });
}

/** The counter rows record() writes for these labels (each new): +1 on its day and on the total, its project's and, when shared, the shared ones. */
function counterRows(labels: Iterable<NewLabel>): Array<Record<string, unknown>> {
  const counts = new Map<string, { project_id: string; kind: string; subject: string; day: number; label: string; count: number }>();
  for (const l of labels) {
    for (const project of l.shared ? [l.projectId, SHARED_PROJECT] : [l.projectId]) {
      for (const { kind, subject } of countedSubjects(l)) {
        for (const day of [dayOf(l.labelledAt), TOTAL_DAY]) {
          const key = `${project} ${kind} ${subject} ${day} ${l.label}`;
          const row = counts.get(key);
          if (row) row.count += 1;
          else counts.set(key, { project_id: project, kind, subject, day, label: l.label, count: 1 });
        }
      }
    }
  }
  return [...counts.values()];
}

/** Stands for each store's own project in the bulk rows, generated once for both databases. */
const BULK_PROJECT = 'prj_bulk';
let bulk: Array<Record<string, unknown>> | undefined;
function bulkRows(): Array<Record<string, unknown>> {
  // In primary-key order: each insert appends to the index instead of splitting pages all over it.
  const key = (r: Record<string, unknown>) => `${r.project_id} ${r.kind} ${r.subject} ${String(r.day).padStart(16, '0')} ${r.label}`;
  bulk ??= counterRows(Array.from({ length: LABELLED }, (_, i) => generated(BULK_PROJECT, i)))
    .map((r) => ({ r, k: key(r) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map(({ r }) => r);
  return bulk;
}

describe.each(testDatabases)('reputation reads after 100,000 labels on $name', (db) => {
  let store: Store;
  let projectId: string;

  beforeAll(async () => {
    store = await db.open();
    projectId = (await store.projects.create({ name: 'busy', policy: 'default' })).id;
    const rows = bulkRows().map((r) => [r.project_id === BULK_PROJECT ? projectId : r.project_id, r.kind, r.subject, r.day, r.label, r.count]);
    // The rows travel as JSON, 50,000 a statement, and the database unpacks them: one INSERT … SELECT each.
    const unpacked =
      db.name === 'sqlite'
        ? `select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]') from json_each(?)`
        : `select r->>0, r->>1, r->>2, (r->>3)::bigint, r->>4, (r->>5)::integer from json_array_elements(?::json) as r`;
    await store.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 50_000)
        await trx.raw(`insert into label_counts (project_id, kind, subject, day, label, count) ${unpacked}`, [JSON.stringify(rows.slice(i, i + 50_000))]);
    });
    const [written] = (await store.knex('label_counts').where('project_id', projectId).count({ n: '*' })) as Array<{ n: number | string }>;
    expect(Number(written?.n)).toBe(rows.filter((r) => r[0] === projectId).length);
    if (db.name === 'postgres') await store.knex.raw('analyze label_counts');
  }, 300_000);
  afterAll(() => store.close());

  it('the bulk rows are what record() writes, the shared ones included', async () => {
    const check = (await store.projects.create({ name: 'check', policy: 'default' })).id;
    // Generated as the bulk ones are, on subjects of their own (the shared rows are every project's).
    const sample = Array.from({ length: 40 }, (_, i) => {
      const l = generated(check, i * 37);
      return { ...l, baseEmail: `s.${l.baseEmail}`, domain: `s.${l.domain}`, ipv4: `192.0.2.${i}`, device: `s.${l.device}` };
    });
    for (const l of sample) await store.labels.record(l, NOW);
    const subjects = new Set(sample.flatMap((l) => countedSubjects(l).map(({ subject }) => subject)));
    // Selected by subject in SQL: the shared project holds half the bulk rows, which a filter here would read first.
    const written = await store
      .knex('label_counts')
      .select('project_id', 'kind', 'subject', 'day', 'label', 'count')
      .whereIn('project_id', [check, SHARED_PROJECT])
      .whereIn('subject', [...subjects]);
    const key = (r: Record<string, unknown>) => `${r.project_id} ${r.kind} ${r.subject} ${Number(r.day)} ${r.label} ${Number(r.count)}`;
    expect(written.length).toBeGreaterThan(0);
    expect(written.map(key).sort()).toEqual(counterRows(sample).map(key).sort());
  });

  const query = (windowDays: number): ReputationCountsQuery => ({
    projectIds: [projectId, SHARED_PROJECT],
    subjects: [
      { kind: 'email', subject: 'u10@busy-shop.com' },
      { kind: 'domain', subject: BUSY },
      { kind: 'network', subject: '10.0.10.0/24' },
      { kind: 'device', subject: 'dev10' },
    ],
    windowDays,
    now: NOW,
  });

  /** Rows each statement returned while `work` ran. */
  async function rowsPerStatement(work: () => Promise<unknown>): Promise<number[]> {
    const counts: number[] = [];
    const listener = (response: unknown) => counts.push(Array.isArray(response) ? response.length : ((response as { rows?: unknown[] }).rows?.length ?? 0));
    store.knex.on('query-response', listener);
    try {
      await work();
    } finally {
      store.knex.removeListener('query-response', listener);
    }
    return counts;
  }

  it.each([30, 365])('a %i-day window: one statement, at most subjects × projects × (days + 1) × labels rows, exact counts', async (days) => {
    // Over store.knex, whose statements (every read included) its query events show.
    const reader = createLabels(store.knex, knexReads(store.knex)).reputationReader([projectId, SHARED_PROJECT]);
    // The first read of a process asks once whether the project has labels (LabelPresence): not what is measured.
    await reader.read({ baseEmail: null, domain: 'warm-up.example', ipv4: null, ipv6: null, device: null, windowDays: days, now: NOW });
    let answer: Awaited<ReturnType<typeof reader.read>> | undefined;
    const reads = await rowsPerStatement(async () => {
      answer = await reader.read({ baseEmail: 'u10@busy-shop.com', domain: BUSY, ipv4: '10.0.10.3', ipv6: null, device: 'dev10', windowDays: days, now: NOW });
    });
    const bound = 4 * 2 * (days + 1) * LABELS.length;
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeLessThanOrEqual(bound);
    console.log(`${db.name}: ${LABELLED} labels, ${days}-day window, 4 subjects, 2 projects: ${reads[0]} rows read in one statement (bound ${bound})`);
    // The busy domain: one label in ten, label i % 7 on day floor(i / 10) % 400 (i a multiple of 10). Within the window, per label:
    const expected = Object.fromEntries(LABELS.map((label) => [label, { window: 0, total: 0 }]));
    for (let i = 0; i < LABELLED; i += 10) {
      const tally = expected[LABELS[i % LABELS.length] as string] as { window: number; total: number };
      tally.total += 1;
      if (Math.floor(i / 10) % 400 < days) tally.window += 1;
    }
    expect(answer?.domain).toEqual(expected);
    expect(answer?.email).toMatchObject({ bounced: { window: 1, total: 1 }, fraud: { window: 0, total: 0 } }); // u10: label 10 % 7 = 3, a day ago
  });

  it('uses the primary key, never a scan', async () => {
    const { sql, bindings } = reputationStatement(query(30));
    if (db.name === 'sqlite') {
      const plan = (await store.knex.raw(`explain query plan ${sql}`, bindings as never[])) as Array<{ detail: string }>;
      const details = plan.map((row) => row.detail).filter((d) => /label_counts/.test(d));
      console.log(`sqlite plan: ${details.join(' | ')}`);
      expect(details.length).toBeGreaterThan(0);
      for (const detail of details)
        expect(detail).toMatch(
          /^SEARCH label_counts USING (PRIMARY KEY|INDEX sqlite_autoindex_label_counts_1) \(project_id=\? AND kind=\? AND subject=\? AND day>\?\)/,
        );
    } else {
      const result = await store.knex.raw(`explain (analyze, format json) ${sql}`, bindings as never[]);
      const plan = (result.rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{ Plan: PlanNode }>;
      const scans: PlanNode[] = [];
      const walk = (node: PlanNode) => {
        if (node['Relation Name'] === 'label_counts') scans.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk((plan[0] as { Plan: PlanNode }).Plan);
      const examined = scans.reduce((sum, node) => sum + node['Actual Rows'] * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0), 0);
      console.log(`postgres plan: ${scans.map((n) => `${n['Node Type']} on ${n['Index Name']}`).join(' | ')}; ${examined} rows examined`);
      expect(scans.length).toBe(4);
      for (const node of scans) {
        expect(node['Node Type']).toMatch(/^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/);
        expect(node['Node Type'] === 'Bitmap Heap Scan' || node['Index Name'] === 'label_counts_pkey').toBe(true);
      }
      expect(examined).toBeLessThanOrEqual(4 * 2 * 31 * LABELS.length);
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
