// The one error handler, at the top of the chain. Every refusal is an http-errors error (ctx.throw,
// createError): its message reaches the client when it is exposed (4xx, and 501 for an unknown method);
// anything else answers 500 with a tracking id that is also logged, except that a database that cannot
// be reached answers 503 with Retry-After (store/unavailable.ts): the caller may retry, and the service
// recovers by itself. Bodies take the spec's two shapes: verify and ip answer {code, error, id, status: false};
// intelligence, fingerprint and feedback answer {error, code}, plus the same `id`. The id is the request's
// (X-Request-Id, request-log.ts), so an error body, its response header and its log lines agree.
import { isHttpError } from 'http-errors';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { echoInput } from '../../echoed-input.js';
import { throttled } from '../../log-throttle.js';
import { requestIdOf } from './request-log.js';

/** Seconds a client is told to wait when the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Longest message a refusal carries: field names and values are capped where they are quoted; this
 * bounds (and escapes) whatever else a message may quote, e.g. a custom policy's paths.
 */
export const MESSAGE_MAX_CHARS = 512;

/**
 * How an error is told to be a database outage, and what a log line may say of it: the store knows its
 * drivers' errors (src/store/unavailable.ts), and the composition root hands that knowledge in.
 */
export interface Outages {
  isUnavailable(error: unknown): boolean;
  reasonOf(error: unknown): string;
}

export function handleErrors(log: Logger, outages: Outages): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      refuseUnanswered(ctx);
    } catch (caught) {
      const id = requestIdOf(ctx);
      if (outages.isUnavailable(caught)) {
        // An outage, not a bug: a warning (at most one a second per reason), without the query or its values.
        const reason = outages.reasonOf(caught);
        throttled(log).write('warn', `database unavailable: ${reason}`, { id, method: ctx.method, path: ctx.path, reason }, 'database unavailable');
        ctx.status = 503;
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        ctx.body = errorBody(
          ctx.path,
          503,
          `service unavailable: the database cannot be reached; retry in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s (id ${id})`,
          id,
        );
        return;
      }
      const status = isHttpError(caught) ? caught.status : 500;
      const exposed = isHttpError(caught) && caught.expose;
      const method = echoInput(ctx.method);
      const path = echoInput(ctx.path, 256);
      const message = exposed ? echoInput(caught.message, MESSAGE_MAX_CHARS) : `unexpected error; quote id ${id} when reporting it`;
      if (exposed) log.debug({ id, status, method, path, message }, 'request refused');
      else log.error({ err: caught, id, method, path }, 'unexpected error');
      ctx.status = status;
      ctx.body = errorBody(ctx.path, status, message, id);
      closeAfterUnreadBody(ctx);
    }
  };
}

/** Most of an unread body thrown away after a refusal; past it the connection is cut (the client sees a reset). */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * A refusal sent before the body was read whole (too large, undecodable) leaves the rest of the body
 * on the connection: up to DRAIN_LIMIT_BYTES of it is read and thrown away, so the client, still
 * sending, receives the answer rather than a reset, and the connection closes after it instead of
 * parsing the rest as a request. The request timeout bounds how long this may take.
 */
function closeAfterUnreadBody(ctx: Context): void {
  if (ctx.req.complete) return;
  ctx.set('Connection', 'close');
  let drained = 0;
  ctx.req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) ctx.req.destroy();
  });
  ctx.req.resume();
}

/** The router leaves these statuses without a body; they get an error body like any other refusal. */
function refuseUnanswered(ctx: Context): void {
  if (ctx.body !== undefined) return;
  const method = echoInput(ctx.method);
  if (ctx.status === 404) ctx.throw(404, `no route for ${method} ${echoInput(ctx.path)}`);
  if (ctx.status === 405) ctx.throw(405, `method ${method} is not allowed here: use ${ctx.response.get('Allow')}`);
  // The client's doing, not the service's: its message is shown like a 4xx's.
  if (ctx.status === 501) ctx.throw(501, `method ${method} is not implemented: use ${ctx.response.get('Allow') || 'POST'}`, { expose: true });
}

export function errorBody(path: string, code: number, error: string, id: string): Record<string, unknown> {
  const plain = path.startsWith('/v1/intelligence') || path.startsWith('/v1/fingerprint') || path.startsWith('/v1/feedback');
  return plain ? { error, code, id } : { code, error, id, status: false };
}
