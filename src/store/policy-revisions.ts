// policy_revisions: the text of every policy revision that decided a stored event, by revision (its content
// hash), so a decision can be explained under the rules in force then, after the project's policy changed.
// A revision's text never changes, so a remember() is an insert that a revision already stored ignores:
// idempotent, and two instances remembering one revision at once both succeed.
import type { Knex } from 'knex';
import { type BackgroundWrites, backgroundWrites } from './background-writes.js';
import { toNumber } from './sql-values.js';

export interface PolicyRevision {
  /** Content hash of the text (policyRevision in src/policy/load.ts). */
  revision: string;
  /** The policy's name when it was first remembered. */
  name: string;
  /** The YAML text. */
  source: string;
  createdAt: number;
}

export interface PolicyRevisions {
  /** Stores the revision's text unless it is stored already. */
  remember(policy: { revision: string; name: string; source: string }, now?: number): Promise<void>;
  /** The revision's text, or null when it was never stored. */
  get(revision: string): Promise<PolicyRevision | null>;
}

interface RevisionRow {
  revision: string;
  name: string;
  source: string;
  created_at: unknown;
}

/** `write`: how the row is stored (background-writes.ts: on an embedded file, by the writer thread, in turn with the commits). */
export function createPolicyRevisions(knex: Knex, write: BackgroundWrites = backgroundWrites(knex, null)): PolicyRevisions {
  return {
    async remember({ revision, name, source }, now = Date.now()) {
      if (typeof revision !== 'string' || revision === '' || typeof source !== 'string')
        throw new TypeError('a policy revision needs its revision and source text');
      await write([knex('policy_revisions').insert({ revision, name, source, created_at: now }).onConflict('revision').ignore()]);
    },
    async get(revision) {
      const row = (await knex<RevisionRow>('policy_revisions').select('revision', 'name', 'source', 'created_at').where({ revision }).first()) as
        | RevisionRow
        | undefined;
      return row ? { revision: row.revision, name: row.name, source: row.source, createdAt: toNumber(row.created_at) } : null;
    },
  };
}
