// Feedback on decisions (issue 50): what a project learned about its sign-ups afterwards.
// - labels: the current label of each labelled subject, one row per (project, subject). A subject is a
//   decision (`event:<events.id>`) or, for labels imported without one, an address (`address:<base>` or
//   `address:<base> ip:<ip>`). `revision` rises with every change, `change_id` names the last one (the
//   optimistic write of labels.ts).
// - label_history: every change of a label, appended, never updated.
// - label_counts: the reputation counters, written with each change: labels per (project, kind, subject,
//   day, label), plus a total row per subject (day TOTAL_DAY). Kinds: email (base address), domain, network
//   (IPv4 /24, IPv6 /64) and device. Rows under project `*` count the labels of every project that shares
//   its reputation (SHARED_REPUTATION). A window read takes at most a window's days of one subject.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('labels', (t) => {
    t.text('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    t.text('subject').notNullable();
    t.bigInteger('event_id').nullable();
    t.string('decision_id', 36).nullable();
    t.text('email').notNullable();
    t.text('base_email').notNullable();
    t.text('domain').nullable();
    t.text('ipv4').nullable();
    t.text('ipv6').nullable();
    t.text('device').nullable();
    t.text('label').notNullable();
    t.text('note').nullable();
    t.text('source').notNullable();
    // When the outcome was observed (an import's date, else when the label arrived), ms.
    t.bigInteger('labelled_at').notNullable();
    // Whether its counts went to the shared rows too.
    t.boolean('shared').notNullable();
    t.integer('revision').notNullable();
    t.string('change_id', 36).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'subject']);
    // `feedback list`: a project's newest changes; an address's.
    t.index(['project_id', 'updated_at'], 'labels_project_id_updated_at_index');
    t.index(['project_id', 'base_email', 'updated_at'], 'labels_project_id_base_email_index');
  });
  await knex.schema.createTable('label_history', (t) => {
    t.bigIncrements('id');
    t.text('project_id').notNullable().references('id').inTable('projects').onDelete('CASCADE');
    t.text('subject').notNullable();
    t.text('label').notNullable();
    t.text('note').nullable();
    t.text('source').notNullable();
    t.bigInteger('labelled_at').notNullable();
    t.integer('revision').notNullable();
    t.string('change_id', 36).notNullable();
    t.bigInteger('recorded_at').notNullable();
    t.index(['project_id', 'subject', 'change_id'], 'label_history_subject_index');
  });
  await knex.schema.createTable('label_counts', (t) => {
    t.text('project_id').notNullable();
    t.text('kind').notNullable();
    t.text('subject').notNullable();
    t.bigInteger('day').notNullable();
    t.text('label').notNullable();
    t.integer('count').notNullable();
    t.primary(['project_id', 'kind', 'subject', 'day', 'label']);
  });
  await knex.schema.alterTable('projects', (t) => {
    // Whether the project's labels count in, and it reads, the deployment's shared reputation (SHARED_REPUTATION).
    t.boolean('shares_reputation').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('shares_reputation');
  });
  await knex.schema.dropTableIfExists('label_counts');
  await knex.schema.dropTableIfExists('label_history');
  await knex.schema.dropTableIfExists('labels');
}
