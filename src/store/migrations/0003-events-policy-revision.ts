// Every decision names the policy revision that made it (the policy's content hash), as OPA's
// decision logs do: a stored event can be explained by the exact rules in force at the time.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Nullable: rows from before this migration have none.
    t.text('policy_revision').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('policy_revision');
  });
}
