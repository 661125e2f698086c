// The service's logger. Logs never hold keys, tokens, addresses, IPs or SQL values: credentials and
// request fields are redacted by path, and an error is logged through `safeError`, which keeps what
// tells an operator what failed (its type, the driver's code, a short reason, the stack frames) and
// drops what a database error carries about the data: knex writes the whole statement, values
// included, into error.message ("insert into events (…) values ('a@x.com', '192.0.2.1', …) - SQLITE_…"),
// and PostgreSQL adds the refused row in `detail`.
import type { DestinationStream, Logger } from 'pino';
import { pino } from 'pino';
import type { Config } from '../config.js';

/** Request parts that hold credentials or personal data, wherever a log line carries them. */
export const REDACTED_PATHS = [
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers.cookie',
  'body.email_address',
  'body.fingerprint',
  '*.body.email_address',
  '*.body.fingerprint',
];

/** The longest reason kept from a database error's message. */
const MAX_REASON = 160;

/** What a database error may keep: none of these holds a value of the statement. */
const DATABASE_ERROR_FIELDS = new Set(['code', 'errno', 'severity', 'table', 'column', 'constraint', 'routine']);

/** Fields that carry statements or their values, dropped from any error. */
const STATEMENT_FIELDS = new Set(['sql', 'bindings', 'parameters', 'query', 'detail', 'hint', 'where', 'internalQuery', 'position', 'internalPosition']);

/** A message that starts with a statement, as knex writes it: "<statement> - <driver's message>". */
const STATEMENT_START = /^\s*(insert|select|update|delete|with|create|alter|drop|pragma|begin|commit|rollback|savepoint|release|set|show|values)\s/i;

// Lines go to stderr asynchronously (sonic-boom): a line written while the last is still on its way joins
// it in one write, instead of a write(2) per line on the event loop (docs/decisions/0045). pino flushes what
// is left synchronously when the process exits.
export function createLogger(config: Pick<Config, 'logLevel'>, destination: DestinationStream = pino.destination({ dest: 2, sync: false })): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'email-trust' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: safeError, error: safeError },
    },
    destination,
  );
}

/**
 * An error as pino would write it (type, message, stack, own fields, `cause`), each error of the chain
 * cleaned on its own: pino's serializer would fold a cause's message, statement and all, into the top
 * one's.
 */
export function safeError(value: unknown): unknown {
  return value instanceof Error ? describe(value, new Set()) : value;
}

function describe(error: Error, seen: Set<Error>): Record<string, unknown> {
  seen.add(error);
  const database = isDatabaseError(error);
  const fields = error as unknown as Record<string, unknown>;
  const type = typeof error.constructor === 'function' ? error.constructor.name : error.name;
  const message = database ? databaseReason(String(error.message), fields.code) : String(error.message);
  const stack = typeof error.stack === 'string' ? (database ? [`${type}: ${message}`, ...frames(error.stack)].join('\n') : error.stack) : undefined;
  const out: Record<string, unknown> = { type, message, stack };
  const nested = (field: unknown) => (field instanceof Error ? (seen.has(field) ? '[circular]' : describe(field, seen)) : field);
  for (const key of Object.keys(error)) {
    if (key in out || STATEMENT_FIELDS.has(key) || (database && !DATABASE_ERROR_FIELDS.has(key))) continue;
    out[key] = nested(fields[key]);
  }
  if (error.cause !== undefined) out.cause = nested(error.cause);
  if (Array.isArray(fields.errors)) out.errors = (fields.errors as unknown[]).map(nested);
  return out;
}

/** A driver's error (an SQLite code, a PostgreSQL SQLSTATE), or one whose message knex began with the statement. */
function isDatabaseError(error: Error): boolean {
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (/^SQLITE_/.test(code) || /^[0-9A-Z]{5}$/.test(code))) return true;
  return STATEMENT_START.test(String(error.message));
}

/** The driver's code and its reason, without the statement knex put in front of it nor quoted values. */
function databaseReason(message: string, code: unknown): string {
  const statement = STATEMENT_START.test(message);
  const separator = message.lastIndexOf(' - ');
  let reason = statement ? (separator >= 0 ? message.slice(separator + 3) : 'the statement failed') : message;
  // Identifiers stay ("events_pkey"); anything else in quotes may be a value.
  reason = reason.replace(/"([^"]*)"|'([^']*)'|\(([^()]*)\)=\(([^()]*)\)/g, (whole, double?: string, single?: string) => {
    const inner = double ?? single;
    return inner !== undefined && /^[A-Za-z_][A-Za-z0-9_.]{0,62}$/.test(inner) ? whole : '[value]';
  });
  if (reason.length > MAX_REASON) reason = `${reason.slice(0, MAX_REASON)}…`;
  const prefix = typeof code === 'string' && !reason.startsWith(code) ? `${code}: ` : '';
  return `${prefix}${reason}`;
}

function frames(stack: string): string[] {
  return stack.split('\n').filter((line) => /^\s+at /.test(line));
}
