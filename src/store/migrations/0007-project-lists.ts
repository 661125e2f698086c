// A project's own domain lists (`email-trust project lists`): one row per (project, list, domain), and a
// revision on the project, raised by every change, by which running services know to reload the lists.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('project_list_entries', (t) => {
    t.text('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    t.text('list').notNullable();
    t.text('domain').notNullable();
    // Unique, and the lookups' index: a project's entries, one list's entries, one entry.
    t.primary(['project_id', 'list', 'domain']);
  });
  await knex.schema.alterTable('projects', (t) => {
    t.bigInteger('lists_revision').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('lists_revision');
  });
  await knex.schema.dropTable('project_list_entries');
}
