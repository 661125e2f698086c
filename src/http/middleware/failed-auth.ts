// Guessing keys costs the guesser: failed authentications (no key, a malformed, unknown, revoked or
// wrong-kind one) are counted per client address (ctx.state.client, as TRUST_PROXY reads it; an IPv6
// client by its /64, which one host usually holds whole) in a one-minute window. Past
// RATE_LIMIT_FAILED_AUTH each further failure of the client is a 429 with Retry-After instead of a 401.
// Only failures are counted and refused: auth.ts checks the key first (a hash and a cached index lookup),
// so a valid key from a blocked address (a NAT, a proxy without TRUST_PROXY) is answered as usual. The
// counters are shared by every instance (service/limits.ts).
import ipaddr from 'ipaddr.js';
import type { Context } from 'koa';
import type { Limits } from '../../service/limits.js';
import { setRefusalHeaders } from './rate-limit.js';

const WINDOW_SECONDS = 60;
const IPV6_PREFIX_HEXTETS = 4;

export interface FailedAuthLimit {
  /** Counts one failure of the client; throws 429 when it is past the limit. */
  countFailure(ctx: Context): Promise<void>;
}

/** The counter key of a client: its IPv4 address, or its IPv6 /64. */
export function clientBucket(ctx: Context): string {
  const { ipv4_address: v4, ipv6_address: v6 } = ctx.state.client ?? {};
  if (v4) return v4;
  if (!v6) return 'unknown';
  const parts = ipaddr.IPv6.parse(v6).parts.slice(0, IPV6_PREFIX_HEXTETS);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

export function failedAuthLimit(limits: Limits, perMinute: number): FailedAuthLimit {
  if (perMinute <= 0) return { countFailure: async () => {} };
  const limiter = limits.limiter('failed_auth', perMinute, WINDOW_SECONDS);
  const refuse = (ctx: Context, msBeforeNext: number): never => {
    setRefusalHeaders(ctx, { policy: 'failed_auth', quota: perMinute, windowSeconds: WINDOW_SECONDS, resetSeconds: msBeforeNext / 1000 });
    ctx.throw(429, `too many failed authentications from this client: at most ${perMinute} per minute; retry later with a valid key`);
  };
  return {
    async countFailure(ctx) {
      const waitMs = await limiter.take(clientBucket(ctx));
      if (waitMs !== null) refuse(ctx, waitMs);
    },
  };
}
