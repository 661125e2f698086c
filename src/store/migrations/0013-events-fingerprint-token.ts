// The fingerprint token an event was decided with, by its id (a hash of the token, never the token), and a
// partial index to read a token's uses by (events.ts, tokenUses: its newest events, capped): only events
// with a token take an entry. The device's IPs and networks are counted from here on as well
// (velocity-counters.ts): backfilled from the events stored, as the write path would have counted them.
import type { Knex } from 'knex';
import type { EventRow } from '../commit-statements.js';
import { toNumber } from '../sql-values.js';
import { type CounterKind, writeCounters } from '../velocity-counters.js';

const BACKFILLED: ReadonlySet<CounterKind> = new Set(['device_ip', 'device_network']);
const TOKEN_INDEX = 'events_project_id_fingerprint_token_created_at_index';
const BATCH = 1_000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: events without a fingerprint, older rows and rows of instances still on the old code.
    t.string('fingerprint_token', 32).nullable();
  });
  await knex.raw(`create index ${TOKEN_INDEX} on events (project_id, fingerprint_token, created_at) where fingerprint_token is not null`);
  // Events with a device and an IP, by id in batches: memory stays bounded however many there are.
  let after = 0;
  for (;;) {
    const batch = (await knex('events')
      .select('id', 'project_id', 'email_lower', 'base_email', 'ipv4', 'ipv6', 'device', 'created_at')
      .where('id', '>', after)
      .whereNotNull('device')
      .where((q) => q.whereNotNull('ipv4').orWhereNotNull('ipv6'))
      .orderBy('id')
      .limit(BATCH)) as Array<Record<string, unknown>>;
    if (batch.length === 0) break;
    const rows = batch.map((r) => ({ ...r, created_at: toNumber(r.created_at), fingerprint_token: null }) as unknown as EventRow);
    await knex.transaction((trx) => writeCounters(trx, rows, BACKFILLED));
    after = toNumber(batch[batch.length - 1]?.id);
    if (batch.length < BATCH) break;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('velocity_addresses')
    .whereIn('kind', [...BACKFILLED])
    .del();
  await knex('velocity_counts')
    .whereIn('kind', [...BACKFILLED])
    .del();
  await knex.raw(`drop index ${TOKEN_INDEX}`);
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('fingerprint_token');
  });
}
