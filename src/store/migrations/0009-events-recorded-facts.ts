// `email-trust policy replay` re-decides stored events with a candidate policy. What it can compute again
// offline (the address's own checks) it does; what came from the network or the history at decision time
// (DNS, RDAP, website, velocity, as facts) is stored here with each verify event: a JSON object of
// fact → value, only the facts the decision read.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: older rows, intelligence events and rows of instances still on the old code have none.
    t.text('recorded_facts').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('recorded_facts');
  });
}
