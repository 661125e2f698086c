// Headers on every answer, errors and preflights included: browsers never sniff a JSON body into
// something they would run, and no cache keeps an answer about someone's address. A route that may be
// cached (GET /v1/fingerprint.js) sets its own Cache-Control over this one.
import type { Middleware } from 'koa';

export const RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

export function responseHeaders(): Middleware {
  return (ctx, next) => {
    ctx.set(RESPONSE_HEADERS);
    return next();
  };
}
