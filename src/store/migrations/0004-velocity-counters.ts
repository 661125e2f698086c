// Velocity counters maintained on write (src/store/velocity-counters.ts), so a velocity read costs a
// bounded amount however long a subject's history is; backfilled here from the events already stored.
import type { Knex } from 'knex';
import { TOTAL_BUCKET } from '../velocity-counters.js';

/** Each counted kind, the events column its subject comes from (email: the base address), and what it keeps. */
const SUBJECTS = [
  { kind: 'ipv4', column: 'ipv4', addresses: true, minutes: true },
  { kind: 'ipv6', column: 'ipv6', addresses: true, minutes: true },
  { kind: 'device', column: 'device', addresses: true, minutes: true },
  { kind: 'email', column: 'base_email', addresses: false, minutes: false },
] as const;

/** The address a row counts as (rows from before migration 0002 may lack email_lower). */
const ADDRESS = 'coalesce(email_lower, base_email)';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('velocity_counts', (t) => {
    t.text('project_id').notNullable();
    t.text('kind').notNullable();
    t.text('subject').notNullable();
    // Minute number since the epoch (ms / 60000), or TOTAL_BUCKET for the subject's total row.
    t.bigInteger('bucket').notNullable();
    t.bigInteger('validations').notNullable();
    // Distinct addresses: kept on the total row only.
    t.bigInteger('addresses').notNullable().defaultTo(0);
    // The primary key is the read's index: (project, kind, subject) then buckets in order.
    t.primary(['project_id', 'kind', 'subject', 'bucket']);
    t.index(['bucket']); // retention
  });
  await knex.schema.createTable('velocity_addresses', (t) => {
    t.text('project_id').notNullable();
    t.text('kind').notNullable();
    t.text('subject').notNullable();
    t.text('address').notNullable();
    t.bigInteger('last_seen').notNullable();
    t.primary(['project_id', 'kind', 'subject', 'address']);
    // Covers the newest-addresses read: no table lookup per row.
    t.index(['project_id', 'kind', 'subject', 'last_seen', 'address'], 'velocity_addresses_newest_index');
    t.index(['last_seen']); // retention
  });

  // Backfill from the stored events; integer division gives the minute on both databases.
  for (const { kind, column, addresses, minutes } of SUBJECTS) {
    if (minutes)
      await knex.raw(
        `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses)
       select project_id, '${kind}', ${column}, created_at / 60000, count(*), 0 from events
       where ${column} is not null group by project_id, ${column}, created_at / 60000`,
      );
    await knex.raw(
      `insert into velocity_counts (project_id, kind, subject, bucket, validations, addresses)
       select project_id, '${kind}', ${column}, ?, count(*), ${addresses ? `count(distinct ${ADDRESS})` : '0'} from events
       where ${column} is not null group by project_id, ${column}`,
      [TOTAL_BUCKET],
    );
    if (addresses) {
      await knex.raw(
        `insert into velocity_addresses (project_id, kind, subject, address, last_seen)
         select project_id, '${kind}', ${column}, ${ADDRESS}, max(created_at) from events
         where ${column} is not null group by project_id, ${column}, ${ADDRESS}`,
      );
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('velocity_addresses');
  await knex.schema.dropTableIfExists('velocity_counts');
}
