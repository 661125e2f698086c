// Requests per second per key (or per client address), as the spec's limits say; 0 turns a limit off.
// The counting is the service's (service/limits.ts: Redis shared by every instance, or memory).
import type { Context, Middleware } from 'koa';
import type { LimitName, Limits } from '../../service/limits.js';

export function rateLimit(limits: Limits, name: LimitName, perSecond: number, keyOf: (ctx: Context) => string): Middleware {
  if (perSecond <= 0) return (_ctx, next) => next();
  const limiter = limits.limiter(name, perSecond, 1);
  return async (ctx, next) => {
    const waitMs = await limiter.take(keyOf(ctx));
    if (waitMs !== null) {
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
      ctx.throw(429, `rate limit exceeded: at most ${perSecond} requests per second; retry with exponential backoff`);
    }
    await next();
  };
}
