// The Koa app, built without listening: `serve` listens, tests start it on an ephemeral port.
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Access } from '../service/access.js';
import type { BrowserOrigins } from '../service/browser-origins.js';
import { type ClientAddress, forwardedClient } from '../service/client-ip.js';
import type { Decided } from '../service/decisions.js';
import type { FeedbackRequest } from '../service/feedback.js';
import type { FingerprintRequest } from '../service/fingerprint.js';
import type { IntelligenceRequest } from '../service/intelligence.js';
import type { Limits } from '../service/limits.js';
import type { Operations } from '../service/operations.js';
import type { Quota } from '../service/quota.js';
import type { Readiness } from '../service/readiness.js';
import type { VerifyRequest } from '../service/verify.js';
import type { Project } from '../store/projects.js';
import { addApiDocsRoutes } from './api-docs.js';
import { browserScript } from './browser-script.js';
import { addHealthRoutes } from './health.js';
import { metricsRoute } from './metrics.js';
import { requireKey } from './middleware/auth.js';
import { fingerprintCors, fingerprintPreflight } from './middleware/cors.js';
import { handleErrors, type Outages } from './middleware/errors.js';
import type { InFlightRequests } from './middleware/in-flight.js';
import { jsonBody } from './middleware/json-body.js';
import { keepLateDecoderErrors } from './middleware/late-decoder-errors.js';
import { withinQuota } from './middleware/quota.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestLog, routeTable } from './middleware/request-log.js';
import { responseHeaders } from './middleware/response-headers.js';
import { validBody } from './middleware/validate.js';
import type { OpenApiDocument } from './openapi/document.js';
import { addPlaygroundRoutes, PLAYGROUND_BODY_LIMIT_BYTES, PLAYGROUND_EVALUATE_PATH } from './playground.js';

export interface AppDeps {
  config: Pick<Config, 'trustProxy' | 'rateLimits' | 'ops' | 'playground'>;
  log: Logger;
  access: Access;
  /** Which browser origins may call POST /v1/fingerprint. */
  origins: BrowserOrigins;
  operations: Operations;
  /** Rate limits, shared by every instance when Redis is configured. */
  limits: Limits;
  /** Monthly quota per project. */
  quota: Quota;
  /** What GET /readyz asks. */
  readiness: Readiness;
  /** Served at GET /v1/openapi.json and rendered at /docs (openapi/document.ts). */
  apiDescription: OpenApiDocument;
  /** Tells a database outage (503) from a bug (500). */
  outages: Outages;
  /** Counts the requests being handled, so a stop can wait for them (shutdown.ts). */
  inFlight?: InFlightRequests;
}

interface State {
  project: Project;
  keyId: string;
  /** The caller, read once per request from the socket and the X-Forwarded-For entries TRUST_PROXY trusts. */
  client: ClientAddress;
  /** X-Request-Id (request-log.ts). */
  requestId: string;
}

/** The header naming the stored decision of a verify or intelligence answer (`email-trust events show ID`). */
export const DECISION_ID_HEADER = 'X-Decision-Id';

/** A decided answer: its body, and its decision's id in X-Decision-Id. */
function answer(ctx: Koa.Context, decided: Decided<unknown>): void {
  ctx.set(DECISION_ID_HEADER, decided.decisionId);
  ctx.body = decided.body;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa<State>();
  // Koa's ctx.ip (app.proxy) would take the leftmost X-Forwarded-For entry: the client address is ctx.state.client.
  app.proxy = false;
  app.silent = true;

  const router = new Router<State>();
  const limits = deps.config.rateLimits;
  const byKey = (ctx: Koa.Context) => String(ctx.state.keyId);
  const byClient = (ctx: Koa.Context) => String(ctx.state.client.ipv4_address ?? ctx.state.client.ipv6_address);

  router.post('/v1/public/verify', requireKey(deps, 'access_token'), rateLimit(deps.limits, 'verify', limits.verify, byKey), async (ctx) => {
    const request = validBody<VerifyRequest>(ctx, 'verify-request');
    const call = { requestId: ctx.state.requestId };
    answer(ctx, await withinQuota(ctx, deps.quota, ctx.state.project, () => deps.operations.verify(ctx.state.project, request, call)));
  });
  router.post('/v1/intelligence', requireKey(deps, 'private_key'), rateLimit(deps.limits, 'intelligence', limits.intelligence, byKey), async (ctx) => {
    const request = validBody<IntelligenceRequest>(ctx, 'intelligence-request');
    const call = { requestId: ctx.state.requestId };
    answer(ctx, await withinQuota(ctx, deps.quota, ctx.state.project, () => deps.operations.intelligence(ctx.state.project, request, call)));
  });
  router.post('/v1/feedback', requireKey(deps, 'private_key'), rateLimit(deps.limits, 'feedback', limits.feedback, byKey), async (ctx) => {
    const request = validBody<FeedbackRequest>(ctx, 'feedback-request');
    const answered = await deps.operations.feedback(ctx.state.project, request);
    ctx.status = answered.created ? 201 : 200;
    ctx.body = answered.body;
  });
  router.options('/v1/fingerprint', fingerprintPreflight(deps.origins));
  router.post(
    '/v1/fingerprint',
    fingerprintCors(deps.origins),
    requireKey(deps, 'public_key'),
    rateLimit(deps.limits, 'fingerprint', limits.fingerprint, byKey),
    async (ctx) => {
      const request = validBody<FingerprintRequest>(ctx, 'fingerprint-request');
      ctx.body = await deps.operations.fingerprint(ctx.state.project, {
        address: ctx.state.client,
        userAgent: ctx.get('user-agent'),
        acceptLanguage: ctx.get('accept-language'),
        client: request.device,
      });
    },
  );
  router.get('/v1/fingerprint.js', browserScript());
  addHealthRoutes(router, deps.readiness);
  if (deps.config.ops.metricsPort === null) router.get('/metrics', metricsRoute({ token: deps.config.ops.metricsToken }));
  addApiDocsRoutes(router, deps.apiDescription);
  if (deps.config.playground) {
    // The playground's calls are verify calls of another form: the same key, the same per-key limit.
    addPlaygroundRoutes(router, deps.operations, [requireKey(deps, 'access_token'), rateLimit(deps.limits, 'verify', limits.verify, byKey)]);
  }
  router.post('/v1/public/ip', rateLimit(deps.limits, 'ip', limits.ip, byClient), (ctx) => {
    ctx.body = ctx.state.client;
  });

  if (deps.inFlight) app.use(deps.inFlight.middleware);
  app.use(requestLog(deps.log, deps.config.ops.accessLog, routeTable(router.stack.map((layer) => layer.path))));
  app.use(responseHeaders());
  app.use(handleErrors(deps.log, deps.outages));
  app.use((ctx, next) => {
    ctx.state.client = forwardedClient(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for'), deps.config.trustProxy);
    return next();
  });
  app.use(keepLateDecoderErrors());
  app.use(jsonBody(deps.config.playground ? { [PLAYGROUND_EVALUATE_PATH]: PLAYGROUND_BODY_LIMIT_BYTES } : {}));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
