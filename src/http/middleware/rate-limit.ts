// Requests per second per key (or per client address), as the spec's limits say; 0 turns a limit off.
// The counting is the service's (service/limits.ts: Redis shared by every instance, or memory).
import type { Context, Middleware } from 'koa';
import type { LimitName, Limits } from '../../service/limits.js';

/** A limit as a 429 tells it: its name, its quota of requests per window, and when the caller may try again. */
export interface Refusal {
  policy: string;
  quota: number;
  windowSeconds: number;
  /** Seconds until the quota frees (at least 1). */
  resetSeconds: number;
}

/**
 * Retry-After, and the IETF RateLimit-Policy and RateLimit fields in their structured-field form
 * (draft-ietf-httpapi-ratelimit-headers-09, the form since -08): `"verify";q=10;w=1` and `"verify";r=0;t=1`.
 * Set on every 429: of a rate limit, of the failed-authentication limit and of the monthly quota.
 */
export function setRefusalHeaders(ctx: Context, refusal: Refusal): void {
  const reset = Math.max(1, Math.ceil(refusal.resetSeconds));
  ctx.set('Retry-After', String(reset));
  ctx.set('RateLimit-Policy', `"${refusal.policy}";q=${refusal.quota};w=${refusal.windowSeconds}`);
  ctx.set('RateLimit', `"${refusal.policy}";r=0;t=${reset}`);
}

export function rateLimit(limits: Limits, name: LimitName, perSecond: number, keyOf: (ctx: Context) => string): Middleware {
  if (perSecond <= 0) return (_ctx, next) => next();
  const limiter = limits.limiter(name, perSecond, 1);
  return async (ctx, next) => {
    const waitMs = await limiter.take(keyOf(ctx));
    if (waitMs !== null) {
      setRefusalHeaders(ctx, { policy: name, quota: perSecond, windowSeconds: 1, resetSeconds: waitMs / 1000 });
      ctx.throw(429, `rate limit exceeded: at most ${perSecond} requests per second; retry with exponential backoff`);
    }
    await next();
  };
}
