// Every request gets an id, returned in X-Request-Id and carried by its error body (errors.ts) and its
// log lines: a sane incoming X-Request-Id (a proxy's or the caller's) is kept, anything else is replaced
// by a fresh UUID. Once the answer is set, one access log line (method, route, status, ms, id, and for a
// 4xx its reason: the message the client got, keys and fingerprints in it cut to their prefix) is written
// at info level and the request is counted in the metrics (src/metrics.ts) by route pattern, never by raw
// URL; a request refused before routing (a body that is not JSON) goes under the route its path names.
// A verdict's action is counted by operation.
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

/** A key (etv_xx_…) or a fingerprint token (fp1.…) a message may quote from a body: logged as its prefix. */
const SECRET = /(etv_(?:at|sk|pk)_|fp1\.)[A-Za-z0-9_.-]*/g;

/**
 * Route patterns by the paths that name them, as the router matches a path (in any case, with one trailing
 * slash or none), for the requests refused before the router runs; patterns with parameters are left out.
 */
export type RouteTable = ReadonlyMap<string, string>;

export function routeTable(patterns: Iterable<string | RegExp>): RouteTable {
  const table = new Map<string, string>();
  for (const pattern of patterns) if (typeof pattern === 'string' && !/[:*(]/.test(pattern)) table.set(routeKey(pattern), pattern);
  return table;
}

const routeKey = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

/** The router's pattern for the request (e.g. /v1/public/verify), else the one its path names, else UNMATCHED_ROUTE. */
function routeOf(ctx: Context, routes: RouteTable): string {
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return routes.get(routeKey(ctx.path)) ?? UNMATCHED_ROUTE;
}

/** Why a 4xx was refused, for the access line: its message without the keys it may quote, and never a path no route has. */
function reasonOf(ctx: Context, route: string): string | undefined {
  if (ctx.status < 400 || ctx.status > 499) return undefined;
  const message = (ctx.body as { error?: unknown } | null | undefined)?.error;
  if (typeof message !== 'string') return undefined;
  // The 404's message quotes the raw path, which the access line never carries.
  if (route === UNMATCHED_ROUTE && ctx.status === 404) return 'no route for this path';
  return message.replace(SECRET, '$1…');
}

export function requestLog(log: Logger, accessLog: boolean, routes: RouteTable): Middleware {
  // The access line holds fixed fields only (no header, body or address), so it skips the logger's
  // redaction by path, a cost on every request (docs/decisions/0045).
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
      const route = routeOf(ctx, routes);
      const labels = { route, method: knownMethod(ctx.method), status: String(ctx.status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, ms / 1000);
      countAction(ctx, route);
      if (accessLog) {
        const line = { id, method: labels.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10 };
        const reason = reasonOf(ctx, route);
        access.info(reason === undefined ? line : { ...line, reason }, 'request');
      }
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
