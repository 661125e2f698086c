// The one error handler, at the top of the chain: 4xx messages reach the client, 5xx never do
// (they get a tracking id that is also logged).
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errorBody, errorShapeFor } from '../errors.js';

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

export function handleErrors(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw new ApiError(404, `no route for ${ctx.method} ${ctx.path}`);
      if (ctx.body === undefined && ctx.status === 405) throw new ApiError(405, `method ${ctx.method} is not allowed here: use ${ctx.response.get('Allow')}`);
      if (ctx.body === undefined && ctx.status === 501) throw new ApiError(501, `method ${ctx.method} is not implemented`);
    } catch (caught) {
      const { status, message } = classify(caught);
      const id = randomUUID();
      if (status >= 500) log.error({ err: caught, id, method: ctx.method, path: ctx.path }, 'unexpected error');
      else log.debug({ id, status, method: ctx.method, path: ctx.path, message }, 'request refused');
      ctx.status = status;
      ctx.body = errorBody(errorShapeFor(ctx.path), status, status >= 500 ? `unexpected error; quote id ${id} when reporting it` : message, id);
    }
  };
}

function classify(caught: unknown): { status: number; message: string } {
  if (caught instanceof ApiError) return { status: caught.status, message: caught.message };
  const e = (caught ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode ?? 500;
  if (status === 413 || e.type === 'entity.too.large') return { status: 413, message: 'request body is larger than 16384 bytes' };
  if (status === 400 && /only supports object and array/.test(e.message ?? '')) return { status: 400, message: 'request body must be a JSON object' };
  if (e.type === 'entity.parse.failed' || (caught instanceof SyntaxError && status === 400)) {
    return { status: 400, message: `request body is not valid JSON: ${e.message ?? 'parse error'}` };
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return { status: 415, message: e.message ?? 'unsupported encoding' };
  if (status >= 400 && status < 500 && e.expose !== false) return { status, message: e.message ?? 'bad request' };
  return { status: 500, message: 'unexpected error' };
}
