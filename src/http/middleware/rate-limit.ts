// Requests per second per key (or per client address), as the spec's limits say; 0 turns a limit off.
import type { Context, Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export function rateLimit(perSecond: number, keyOf: (ctx: Context) => string): Middleware {
  if (perSecond <= 0) return (_ctx, next) => next();
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
  return async (ctx, next) => {
    try {
      await limiter.consume(keyOf(ctx));
    } catch (caught) {
      if (!(caught instanceof RateLimiterRes)) throw caught;
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(caught.msBeforeNext / 1000))));
      ctx.throw(429, `rate limit exceeded: at most ${perSecond} requests per second; retry with exponential backoff`);
    }
    await next();
  };
}
