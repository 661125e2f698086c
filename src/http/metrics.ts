// GET /metrics: the Prometheus exposition of src/metrics.ts. Served on the main port unless
// METRICS_PORT is set, then on a server of its own on that port (and not on the main one). With
// METRICS_TOKEN set it requires "Authorization: Bearer <METRICS_TOKEN>", compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Middleware } from 'koa';
import { registry } from '../metrics.js';

export interface MetricsOptions {
  /** The bearer token a scraper must send; null: none needed. */
  token: string | null;
}

const UNAUTHORIZED = 'missing or invalid credentials: /metrics needs "Authorization: Bearer <METRICS_TOKEN>"';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether an Authorization header carries the token; the time taken does not depend on how much of it matches. */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1] ?? '';
  // Digests of equal length: timingSafeEqual neither throws nor reveals the token's length.
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** The exposition text and its content type, or the refusal. */
async function answer(authorization: string | undefined, options: MetricsOptions): Promise<{ status: number; type: string; body: string }> {
  if (options.token !== null && !carriesToken(authorization, options.token)) {
    return {
      status: 401,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: UNAUTHORIZED, code: 401 }),
    };
  }
  return { status: 200, type: registry.contentType, body: await registry.metrics() };
}

/** The route handler on the main port; a refusal goes through the error handler (its body carries the request id). */
export function metricsRoute(options: MetricsOptions): Middleware {
  return async (ctx) => {
    const { status, type, body } = await answer(ctx.get('authorization'), options);
    if (status === 401) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.throw(401, UNAUTHORIZED);
    }
    ctx.status = status;
    ctx.type = type;
    ctx.body = body;
  };
}

/** The separate server for METRICS_PORT: GET /metrics and nothing else. */
export function createMetricsServer(options: MetricsOptions): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'only GET /metrics is served here', code: 404 }));
      return;
    }
    answer(req.headers.authorization, options).then(
      ({ status, type, body }) => {
        res.writeHead(status, {
          'Content-Type': type,
          'Cache-Control': 'no-store',
          ...(status === 401 ? { 'WWW-Authenticate': 'Bearer realm="metrics"' } : {}),
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () =>
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'metrics could not be collected', code: 500 })),
    );
  });
}
