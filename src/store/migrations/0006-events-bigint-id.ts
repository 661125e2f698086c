// events.id was a 32-bit serial on PostgreSQL (knex's increments): at a sustained 1,000 events a second
// its 2,147,483,647 ids run out in under a month, and every insert then fails. The column and its
// sequence become 64-bit. SQLite's INTEGER PRIMARY KEY is a 64-bit rowid already: nothing to do there.
// On PostgreSQL the type change rewrites the table under an exclusive lock (minutes on a large one).
import type { Knex } from 'knex';

const isPostgres = (knex: Knex) => knex.client.config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('alter table events alter column id type bigint');
  await knex.raw(`alter sequence events_id_seq as bigint`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  // Refused by PostgreSQL when an id is already past the 32-bit range.
  await knex.raw(`alter sequence events_id_seq as integer`);
  await knex.raw('alter table events alter column id type integer');
}
