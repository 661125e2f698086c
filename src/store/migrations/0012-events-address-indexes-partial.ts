// The events' (project_id, ipv4, created_at) and (project_id, ipv6, created_at) indexes held an entry for
// every event, under NULL for one without that address: nearly every event lacks an IPv6, and an
// intelligence call without a fingerprint both. Those entries serve no read (the history of an IP asks
// `ipv4 = ?` or `ipv6 = ?`, which NULL never matches), yet each commit wrote their page and each event took
// index space. Partial indexes hold only the events with the address; both databases use them for those
// reads (the comparison implies IS NOT NULL). Rebuilding them reads the table once (on PostgreSQL under a
// lock that holds writes meanwhile).
import type { Knex } from 'knex';

const COLUMNS = ['ipv4', 'ipv6'] as const;
const indexOf = (column: (typeof COLUMNS)[number]) => `events_project_id_${column}_created_at_index`;

export async function up(knex: Knex): Promise<void> {
  for (const column of COLUMNS) {
    await knex.raw(`drop index ${indexOf(column)}`);
    await knex.raw(`create index ${indexOf(column)} on events (project_id, ${column}, created_at) where ${column} is not null`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const column of COLUMNS) {
    await knex.raw(`drop index ${indexOf(column)}`);
    await knex.raw(`create index ${indexOf(column)} on events (project_id, ${column}, created_at)`);
  }
}
