// fingerprint_keys: the sealing key the service makes when FINGERPRINT_KEYS is not set, kept in the database
// so that every instance on it (and the next start) seals and opens with the same key. Not sealed at rest:
// anyone who reads the database can read it (FINGERPRINT_KEYS keeps the key out of the database).
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { toNumber } from './sql-values.js';

export interface StoredFingerprintKey {
  id: string;
  key: Buffer;
  createdAt: number;
}

export interface FingerprintKeys {
  /**
   * The shared key, made on first use. Instances starting together race to insert one row under a fixed
   * id; the losers' inserts are ignored and everybody reads the winner's key.
   */
  shared(now?: number): Promise<StoredFingerprintKey>;
}

/** The id sealed into tokens (`fp1.<id>.…`); FINGERPRINT_KEYS ids are theirs to choose, this one is the service's. */
export const SHARED_KEY_ID = 'db1';

export function createFingerprintKeys(knex: Knex): FingerprintKeys {
  return {
    async shared(now = Date.now()) {
      await knex('fingerprint_keys')
        .insert({ id: SHARED_KEY_ID, secret: crypto.randomBytes(32).toString('base64'), created_at: now })
        .onConflict('id')
        .ignore();
      const row = await knex('fingerprint_keys').select('id', 'secret', 'created_at').where({ id: SHARED_KEY_ID }).first();
      if (!row) throw new Error('fingerprint_keys: the shared key was inserted but cannot be read back');
      return { id: String(row.id), key: Buffer.from(String(row.secret), 'base64'), createdAt: toNumber(row.created_at) };
    },
  };
}
