// Request bodies are JSON, read whatever Content-Type says (so a missing header is not a silent empty
// body), at most BODY_LIMIT_BYTES; an empty body reads as {}. A body that cannot be read becomes an
// http-errors error the client is told about: even one its Content-Encoding does not decode, whose
// error comes from zlib as a plain Error.
import createError, { isHttpError } from 'http-errors';
import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { echoInput } from '../../echoed-input.js';

/** Largest request body accepted, in bytes. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** JSON whitespace (RFC 8259) then the first character of an object or array. */
const OPENS_OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

interface ReadFailure {
  status?: number;
  type?: string;
  /** The text that failed to parse. */
  body?: unknown;
  /** zlib's: Z_DATA_ERROR, Z_BUF_ERROR, or a brotli decoder error. */
  code?: unknown;
  errno?: unknown;
}

/**
 * The body parser; `larger` gives paths whose bodies may be bigger (the playground carries a whole policy,
 * up to a policy file's 256 KiB).
 */
export function jsonBody(larger: Readonly<Record<string, number>> = {}): Middleware {
  const standard = parser(BODY_LIMIT_BYTES);
  const byPath = new Map(Object.entries(larger).map(([path, limit]) => [path, parser(limit)]));
  return (ctx, next) => (byPath.get(ctx.path) ?? standard)(ctx, next);
}

function parser(limit: number): Middleware {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limit}b`,
    // Strict: only an object or an array parses; any other value is refused before it reaches a route.
    strict: true,
    detectJSON: () => true,
    onerror: (error, ctx) => {
      throw refusal(error, ctx, limit);
    },
  });
}

function refusal(error: Error & ReadFailure, ctx: Context, limit: number): Error {
  const encoding = ctx.get('content-encoding');
  if (error.type === 'entity.too.large') return createError(413, `request body is larger than ${limit} bytes`);
  if (error instanceof SyntaxError) {
    // The strict parser refuses a body that does not open like an object or array before parsing it.
    const opens = typeof error.body === 'string' && OPENS_OBJECT_OR_ARRAY.test(error.body);
    return createError(400, opens ? `request body is not valid JSON: ${echoInput(error.message, 128)}` : 'request body must be a JSON object');
  }
  if (isHttpError(error)) return error;
  // An unsupported Content-Encoding arrives as a plain Error carrying status 415.
  if (error.status === 415) return createError(415, `Unsupported Content-Encoding: ${echoInput(encoding)}`);
  if (error.status !== undefined && error.status >= 400 && error.status < 500) return createError(error.status, error.message);
  if (encoding !== '' && typeof error.code === 'string' && typeof error.errno === 'number') {
    return createError(400, `request body is not valid ${echoInput(encoding)} data: ${echoInput(error.message)}`);
  }
  return error;
}
