// The first schema: projects, their keys, the event log (velocity), cached domain facts and usage.
// Times are integer milliseconds since the epoch (bigInteger); ids are text.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('projects', (t) => {
    t.text('id').primary();
    t.text('name').notNullable().unique();
    t.boolean('sandbox').notNullable().defaultTo(false);
    t.text('policy').notNullable();
    t.text('policy_source').nullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('hash').notNullable().unique();
    t.text('hint').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['project_id']);
  });

  // Append-only log of verify/intelligence calls; no foreign key so writes stay one index-light insert.
  await knex.schema.createTable('events', (t) => {
    t.increments('id');
    t.text('project_id').notNullable();
    t.text('endpoint').notNullable();
    t.text('email').notNullable();
    t.text('base_email').notNullable();
    t.text('domain').nullable();
    t.text('ipv4').nullable();
    t.text('ipv6').nullable();
    t.text('device').nullable();
    t.text('action').notNullable();
    t.integer('risk_score').nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['project_id', 'ipv4', 'created_at']);
    t.index(['project_id', 'ipv6', 'created_at']);
    t.index(['project_id', 'base_email', 'created_at']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('domain_facts', (t) => {
    t.text('domain').notNullable();
    t.text('kind').notNullable();
    t.text('value').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['domain', 'kind']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('usage', (t) => {
    t.text('project_id').notNullable();
    t.text('month').notNullable();
    t.bigInteger('count').notNullable().defaultTo(0);
    t.primary(['project_id', 'month']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['usage', 'domain_facts', 'events', 'api_keys', 'projects']) {
    await knex.schema.dropTableIfExists(table);
  }
}
