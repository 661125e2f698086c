// Decisions you can find and explain (issue 49, point 4): each event keeps the public id the service gave
// its decision (X-Decision-Id), the request's X-Request-Id, the decision's codes (verify: errors and
// warnings; intelligence: the index of the parent rule that decided), and the policy's name; the text of
// every policy revision that decided is kept in policy_revisions, so a decision can be replayed under the
// rules in force at the time. Two indexes: the decision id (a lookup of one row), and (project_id,
// created_at), what `events list` reads a project's newest events by. On PostgreSQL building them reads
// the table once, under a lock that holds writes meanwhile.
import type { Knex } from 'knex';

const DECISION_INDEX = 'events_decision_id_index';
const NEWEST_INDEX = 'events_project_id_created_at_index';
const COLUMNS = ['decision_id', 'request_id', 'policy_name', 'errors', 'warnings', 'parent_rule'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: older rows and rows of instances still on the old code have none.
    t.string('decision_id', 36).nullable();
    t.text('request_id').nullable();
    t.text('policy_name').nullable();
    // Codes separated by spaces; null when there is none.
    t.text('errors').nullable();
    t.text('warnings').nullable();
    t.integer('parent_rule').nullable();
  });
  await knex.raw(`create unique index ${DECISION_INDEX} on events (decision_id) where decision_id is not null`);
  await knex.raw(`create index ${NEWEST_INDEX} on events (project_id, created_at)`);
  await knex.schema.createTable('policy_revisions', (t) => {
    t.text('revision').primary();
    t.text('name').notNullable();
    t.text('source').notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('policy_revisions');
  await knex.raw(`drop index ${NEWEST_INDEX}`);
  await knex.raw(`drop index ${DECISION_INDEX}`);
  await knex.schema.alterTable('events', (t) => {
    for (const column of COLUMNS) t.dropColumn(column);
  });
}
