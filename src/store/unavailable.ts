// Whether an error means the database cannot be reached right now (down, restarting, refusing
// connections, the pool waiting in vain, the file locked or unopenable), as opposed to a bad query or
// a bug. The HTTP layer answers the first kind 503 with Retry-After: the caller may retry, and the
// service recovers without a restart, since the pool opens new connections once the database is back.

/** Node socket errors on the way to the database server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception) and these: admin_shutdown, crash_shutdown,
 * cannot_connect_now (starting up or shutting down), too_many_connections, idle session timeout,
 * disk_full, out_of_memory.
 */
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57P05', '53100', '53200']);

/** SQLite: locked past busy_timeout, the file unopenable or unreadable, the disk or memory full. */
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_NOMEM']);

/** node-postgres reports a dropped or timed-out connection by message alone (knex puts the SQL before it). */
const POSTGRES_MESSAGES = [
  /(^|- )Connection terminated( unexpectedly| due to connection timeout)?$/,
  /(^|- )timeout exceeded when trying to connect$/,
  /(^|- )Client has encountered a connection error and is not queryable$/,
  /(^|- )the database system is (starting up|shutting down|in recovery mode)$/,
];

const MAX_DEPTH = 4;

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return false;
  const { name, code, message, cause, errors } = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  // knex: no pooled connection within acquireConnectionTimeout.
  if (name === 'KnexTimeoutError') return true;
  if (typeof code === 'string') {
    const base = code.split('_').slice(0, 2).join('_'); // SQLITE_IOERR_WRITE → SQLITE_IOERR
    if (NETWORK_CODES.has(code) || POSTGRES_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SQLITE_CODES.has(code) || SQLITE_CODES.has(base)) return true;
  }
  if (typeof message === 'string' && POSTGRES_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return isUnavailable(cause, depth + 1);
}

/** What an outage log line may say of the error: its name and code, never its message (it may quote SQL). */
export function outageReason(error: unknown): string {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return [name, code].filter((part) => typeof part === 'string').join(' ') || 'unknown';
}
