// A project's monthly quota (`email-trust project set-quota`): calls of verify and intelligence per
// calendar month (UTC); null, the default, for none.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.bigInteger('monthly_quota').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('monthly_quota');
  });
}
