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
const DATABASE_ERROR_FIELDS = new Set(['type', 'message', 'stack', 'code', 'errno', 'severity', 'table', 'column', 'constraint', 'routine']);

/** Fields that carry statements or their values, dropped from any error. */
const STATEMENT_FIELDS = new Set(['sql', 'bindings', 'parameters', 'query', 'detail', 'hint', 'where', 'internalQuery', 'position', 'internalPosition']);

/** A message that starts with a statement, as knex writes it: "<statement> - <driver's message>". */
const STATEMENT_START = /^\s*(insert|select|update|delete|with|create|alter|drop|pragma|begin|commit|rollback|savepoint|release|set|show|values)\s/i;

export function createLogger(config: Pick<Config, 'logLevel'>, destination: DestinationStream = pino.destination(2)): Logger {
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

/** pino's error serializer, then everything that could hold a statement's values taken out. */
export function safeError(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const serialized = pino.stdSerializers.err(value) as unknown as Record<string, unknown>;
  return scrub(serialized, value);
}

function scrub(serialized: Record<string, unknown>, original: unknown): Record<string, unknown> {
  const database = isDatabaseError(original, serialized);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(serialized)) {
    if (STATEMENT_FIELDS.has(key)) continue;
    if (database && !DATABASE_ERROR_FIELDS.has(key)) continue;
    if (field !== null && typeof field === 'object' && !Array.isArray(field))
      out[key] = scrub(field as Record<string, unknown>, (original as Record<string, unknown>)?.[key]);
    else out[key] = field;
  }
  if (database) {
    const message = databaseReason(String(serialized.message ?? ''), serialized.code);
    out.message = message;
    if (typeof serialized.stack === 'string') out.stack = [`${String(serialized.type ?? 'Error')}: ${message}`, ...frames(serialized.stack)].join('\n');
  }
  return out;
}

function isDatabaseError(original: unknown, serialized: Record<string, unknown>): boolean {
  const code = serialized.code;
  if (typeof code === 'string' && (/^SQLITE_/.test(code) || /^[0-9A-Z]{5}$/.test(code))) return true;
  return typeof serialized.message === 'string' && STATEMENT_START.test(serialized.message) && original instanceof Error;
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
