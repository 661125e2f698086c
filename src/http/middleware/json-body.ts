// Request bodies are JSON, read whatever Content-Type says (so a missing header is not a silent empty
// body), at most BODY_LIMIT_BYTES; an empty body reads as {}. A body that cannot be read becomes an
// http-errors error the client is told about.
import createError, { isHttpError } from 'http-errors';
import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';

/** Largest request body accepted, in bytes. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** JSON whitespace (RFC 8259) then the first character of an object or array. */
const OPENS_OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

interface ReadFailure {
  status?: number;
  type?: string;
  /** The text that failed to parse. */
  body?: unknown;
}

export function jsonBody(): Middleware {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${BODY_LIMIT_BYTES}b`,
    // Strict: only an object or an array parses; any other value is refused before it reaches a route.
    strict: true,
    detectJSON: () => true,
    onerror: (error) => {
      throw refusal(error);
    },
  });
}

function refusal(error: Error & ReadFailure): Error {
  if (error.type === 'entity.too.large') return createError(413, `request body is larger than ${BODY_LIMIT_BYTES} bytes`);
  if (error instanceof SyntaxError) {
    // The strict parser refuses a body that does not open like an object or array before parsing it.
    const opens = typeof error.body === 'string' && OPENS_OBJECT_OR_ARRAY.test(error.body);
    return createError(400, opens ? `request body is not valid JSON: ${error.message}` : 'request body must be a JSON object');
  }
  if (isHttpError(error)) return error;
  // An unsupported Content-Encoding arrives as a plain Error carrying status 415.
  if (error.status !== undefined && error.status >= 400 && error.status < 500) return createError(error.status, error.message);
  return error;
}
