// What the two drivers return differently: pg gives bigint and count() as strings, SQLite gives
// booleans as 0/1, and each reports a unique violation its own way.
import { randomBytes } from 'node:crypto';

/** A bigint/count column as a JS number (pg returns int8 as a string; our values fit in 2^53). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || typeof value === 'bigint') return Number(value);
  return 0;
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

/** A boolean column (SQLite stores 0/1). */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '23505') return true; // PostgreSQL unique_violation
  // SQLite's codes: the extended SQLITE_CONSTRAINT_UNIQUE (better-sqlite3) or the base SQLITE_CONSTRAINT, with UNIQUE in the message.
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && typeof message === 'string' && message.includes('UNIQUE');
}

/** A random id with a kind prefix, e.g. `prj_3f9a…` (96 random bits, hex). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
