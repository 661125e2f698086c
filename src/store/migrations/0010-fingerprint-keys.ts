// Fingerprint sealing keys made by the service when FINGERPRINT_KEYS is not set, shared by every
// instance on the database (store/fingerprint-keys.ts). Stored as they are: sealing them needs a secret.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fingerprint_keys', (t) => {
    t.string('id', 16).primary();
    t.text('secret').notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fingerprint_keys');
}
