// The stored verify events of one project, read back for `policy replay`: streamed in keyset-paginated
// batches (by id, never OFFSET), so a million events never sit in memory at once. No index is added for it:
// the scan starts at the first event of the window (found through the created_at index) and reads forward
// by primary key, so the write path keeps its indexes as they are.
import type { Knex } from 'knex';
import { toNumber } from './sql-values.js';
import { rowsOf } from './velocity-counters.js';

export interface ReplayEvent {
  id: number;
  email: string;
  /** Its base form: what an address's labels are keyed by (labels.ts forEvents). */
  baseEmail: string;
  ipv4: string | null;
  ipv6: string | null;
  device: string | null;
  /** The action given at the time. */
  action: string;
  /**
   * JSON of the network and history facts the decision read (fact → value), with SOFT_CHECK_MARK for a
   * soft_check call (its domain facts left out); null for events stored before migration 0009.
   */
  recordedFacts: string | null;
  createdAt: number;
}

/** Key of recorded_facts (no fact's name: those are snake_case) set to true for a soft_check call, whose domain facts were not stored. */
export const SOFT_CHECK_MARK = '$soft_check';

export interface ReplayWindow {
  projectId: string;
  /** Events created at or after this time (ms). */
  since: number;
  /** Rows per query. */
  batchSize: number;
}

// By primary key only: `project_id || ''` and `created_at + 0` keep the planners off the (project_id, …) and
// created_at indexes, through which SQLite would read every event of the project and sort them, per batch.
const BATCH_SQL = `select id, email, base_email, ipv4, ipv6, device, action, recorded_facts, created_at from events
  where id > ? and project_id || '' = ? and endpoint = 'verify' and created_at + 0 >= ? order by id limit ?`;

/** How many verify events of the project fall in the window (for the progress bar). */
export async function countReplayEvents(knex: Knex, window: Pick<ReplayWindow, 'projectId' | 'since'>): Promise<number> {
  const [row] = await knex('events').count({ n: '*' }).where({ project_id: window.projectId, endpoint: 'verify' }).andWhere('created_at', '>=', window.since);
  return toNumber(row?.n);
}

/** The window's verify events, oldest id first, one batch per query. */
export async function* replayEvents(knex: Knex, window: ReplayWindow): AsyncGenerator<ReplayEvent[]> {
  const [first] = await knex('events').min({ id: 'id' }).where('created_at', '>=', window.since);
  if (first?.id === null || first?.id === undefined) return;
  let after = toNumber(first.id) - 1;
  for (;;) {
    const rows = rowsOf(await knex.raw(BATCH_SQL, [after, window.projectId, window.since, window.batchSize]));
    if (rows.length === 0) return;
    after = toNumber(rows[rows.length - 1]?.id);
    yield rows.map(replayEvent);
    if (rows.length < window.batchSize) return;
  }
}

function replayEvent(row: Record<string, unknown>): ReplayEvent {
  const facts = row.recorded_facts;
  return {
    id: toNumber(row.id),
    email: String(row.email),
    baseEmail: String(row.base_email),
    ipv4: (row.ipv4 as string | null) ?? null,
    ipv6: (row.ipv6 as string | null) ?? null,
    device: (row.device as string | null) ?? null,
    action: String(row.action),
    recordedFacts: typeof facts === 'string' ? facts : null,
    createdAt: toNumber(row.created_at),
  };
}
