// API keys get a label (what or who uses the key) and the time of their last use (written at most once a
// minute per key per instance). `revoked_at` may now lie in the future: a rotation's scheduled revocation.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('label', 64).nullable();
    t.bigInteger('last_used_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('label');
    t.dropColumn('last_used_at');
  });
}
