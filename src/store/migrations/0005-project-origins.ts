// Browser origins a project's public key may be used from (CORS on POST /v1/fingerprint): a JSON
// array of origins, null for none. Only the projects table changes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.text('allowed_origins').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('allowed_origins');
  });
}
