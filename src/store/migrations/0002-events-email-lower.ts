// Per-IP velocity counts distinct addresses (a+1@x.com and a+2@x.com are two accounts), so events keep
// the whole address lower-cased beside base_email, which velocity by email groups by.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: a row written by an instance still on the old code during a rolling upgrade has none.
    t.text('email_lower').nullable();
  });
  // Until now base_email held exactly this (the address lower-cased in JavaScript, Unicode rules);
  // SQL lower() would fold only ASCII letters on SQLite.
  await knex('events')
    .whereNull('email_lower')
    .update({ email_lower: knex.ref('base_email') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('email_lower');
  });
}
