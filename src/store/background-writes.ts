// Writes beside the event commits, off a request's path: a domain's facts, a key's last use. On an embedded
// file they go to the writer thread (sqlite-writer.ts) as statements, in turn with its commits, so that they
// never wait on the event loop for the lock those commits hold (docs/decisions/0028, 0078); elsewhere they run
// through knex, several in one transaction.
import type { Knex } from 'knex';
import { observed } from './sqlite-statements.js';
import type { SqliteWriter } from './sqlite-writer.js';
import type { Statement } from './velocity-counters.js';

/** Runs the queries (built on knex, not run) in one transaction. */
export type BackgroundWrites = (queries: ReadonlyArray<Knex.QueryBuilder | Knex.Raw>) => Promise<void>;

/** A query's SQL and bindings as better-sqlite3 takes them (as knex's client would bind them). */
function statementOf(query: Knex.QueryBuilder | Knex.Raw): Statement {
  const { sql, bindings } = query.toSQL().toNative();
  return { sql, bindings: bindings.map((b) => (b instanceof Date ? b.valueOf() : typeof b === 'boolean' ? Number(b) : b)) };
}

export function backgroundWrites(knex: Knex, thread: SqliteWriter | null): BackgroundWrites {
  if (thread) {
    return async (queries) => {
      const statements = queries.map(statementOf);
      for (const statement of statements) observed(knex, statement);
      await thread.write(statements);
    };
  }
  return async (queries) => {
    const [only] = queries;
    if (queries.length === 1 && only) await only;
    else if (queries.length > 1)
      await knex.transaction(async (trx) => {
        for (const query of queries) await query.transacting(trx);
      });
  };
}
