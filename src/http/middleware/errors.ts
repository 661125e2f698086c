// The one error handler, at the top of the chain. Every refusal is an http-errors error (ctx.throw,
// createError): its message reaches the client when it is exposed (4xx); anything else answers 500
// with a tracking id that is also logged. Bodies take the spec's two shapes: verify and ip answer
// {code, error, id, status: false}; intelligence and fingerprint answer {error, code}.
import { randomUUID } from 'node:crypto';
import { isHttpError } from 'http-errors';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';

export function handleErrors(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      refuseUnanswered(ctx);
    } catch (caught) {
      const id = randomUUID();
      const status = isHttpError(caught) ? caught.status : 500;
      const exposed = isHttpError(caught) && caught.expose;
      if (exposed) log.debug({ id, status, method: ctx.method, path: ctx.path, message: caught.message }, 'request refused');
      else log.error({ err: caught, id, method: ctx.method, path: ctx.path }, 'unexpected error');
      ctx.status = status;
      ctx.body = errorBody(ctx.path, status, exposed ? caught.message : `unexpected error; quote id ${id} when reporting it`, id);
    }
  };
}

/** The router leaves these statuses without a body; they get an error body like any other refusal. */
function refuseUnanswered(ctx: Context): void {
  if (ctx.body !== undefined) return;
  if (ctx.status === 404) ctx.throw(404, `no route for ${ctx.method} ${ctx.path}`);
  if (ctx.status === 405) ctx.throw(405, `method ${ctx.method} is not allowed here: use ${ctx.response.get('Allow')}`);
  if (ctx.status === 501) ctx.throw(501, `method ${ctx.method} is not implemented`);
}

function errorBody(path: string, code: number, error: string, id: string): Record<string, unknown> {
  const plain = path.startsWith('/v1/intelligence') || path.startsWith('/v1/fingerprint');
  return plain ? { error, code } : { code, error, id, status: false };
}
