// The fingerprint token an event was decided with, by its id (a hash of the token, never the token): the
// counters of its uses (the addresses and IPs one token was presented with, velocity-counters.ts) are
// kept from it, and retention takes an event off them by it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: events without a fingerprint, older rows and rows of instances still on the old code.
    t.string('fingerprint_token', 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('fingerprint_token');
  });
}
