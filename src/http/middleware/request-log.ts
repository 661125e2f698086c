// Every request gets an id, returned in X-Request-Id and carried by its error body (errors.ts) and its
// log lines: a sane incoming X-Request-Id (a proxy's or the caller's) is kept, anything else is replaced
// by a fresh UUID. Once the answer is set, one access log line (method, route, status, ms, id) is
// written at info level and the request is counted in the metrics (src/metrics.ts) by route pattern,
// never by raw URL; a verdict's action is counted by operation.
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { actions, httpDuration, httpRequests } from '../../metrics.js';
import { ACTIONS, VERDICT_ACTIONS } from '../../vocabulary.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept when it is this: letters, digits and a few separators, at most 128 characters. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The route label of a request no route matched (the raw path is never a label). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The operations whose answers carry an `action`, by route pattern. */
const OPERATIONS: Readonly<Record<string, string>> = { '/v1/public/verify': 'verify', '/v1/intelligence': 'intelligence' };
const KNOWN_ACTIONS = new Set<string>([...ACTIONS, ...VERDICT_ACTIONS]);

/** The request's id (set by requestLog, which runs first); a fresh one if it did not run. */
export function requestIdOf(ctx: Context): string {
  const id = ctx.state.requestId;
  return typeof id === 'string' ? id : randomUUID();
}

/** The router's pattern for the request (e.g. /v1/public/verify), or UNMATCHED_ROUTE. */
export function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
}

export function requestLog(log: Logger, accessLog = true): Middleware {
  // The access line holds fixed fields only (no header, body or address), so it skips the logger's
  // redaction by path, which cost about 6 µs a line.
  const access = log.child({}, { redact: [] });
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const id = SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      const route = routeOf(ctx);
      const labels = { route, method: knownMethod(ctx.method), status: String(ctx.status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, ms / 1000);
      countAction(ctx, route);
      if (accessLog) access.info({ id, method: labels.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}

/** node:http passes any token as a method: the label keeps the standard ones only. */
function knownMethod(method: string): string {
  return /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(method) ? method : 'other';
}

function countAction(ctx: Context, route: string): void {
  const operation = OPERATIONS[route];
  if (!operation || ctx.status !== 200) return;
  const action = (ctx.body as { action?: unknown } | null | undefined)?.action;
  if (typeof action === 'string' && KNOWN_ACTIONS.has(action)) actions.inc({ operation, action });
}
