// Authentication as the spec fixes it: a Bearer access token for verify, x-api-key carrying a
// private key for intelligence and a public key for fingerprint. Wrong kind, revoked or unknown → 401;
// a client past its failed authentications (failed-auth.ts) → 429 before its key is looked up.
import type { Context, Middleware, Next } from 'koa';
import type { KeyKind } from '../../store/keys.js';
import type { AppDeps } from '../app.js';
import { type FailedAuthLimit, failedAuthLimit } from './failed-auth.js';

const MAX_TOKEN_LENGTH = 256;

/** One failure counter per app, shared by its three authenticated operations. */
const limits = new WeakMap<AppDeps, FailedAuthLimit>();

function limitOf(deps: AppDeps): FailedAuthLimit {
  let limit = limits.get(deps);
  if (!limit) {
    limit = failedAuthLimit(deps.limits, deps.config.rateLimits.failedAuth);
    limits.set(deps, limit);
  }
  return limit;
}

export function requireKey(deps: AppDeps, kind: KeyKind): Middleware {
  const header = kind === 'access_token' ? 'authorization' : 'x-api-key';
  const what = kind === 'access_token' ? 'an access token in "Authorization: Bearer <token>"' : `a ${kind.replace('_', ' ')} in the x-api-key header`;
  const limit = limitOf(deps);
  return async (ctx: Context, next: Next) => {
    await limit.refuseIfBlocked(ctx);
    const raw = ctx.get(header).trim();
    const token = kind === 'access_token' ? /^Bearer\s+(\S+)$/i.exec(raw)?.[1] : raw;
    if (!token) {
      await limit.countFailure(ctx);
      ctx.throw(401, `missing credentials: this operation needs ${what}`);
    }
    const found = token.length <= MAX_TOKEN_LENGTH ? await deps.access.authenticate(token, kind) : null;
    if (!found) {
      await limit.countFailure(ctx);
      ctx.throw(401, `invalid credentials: the ${kind.replace('_', ' ')} is unknown, revoked or of another kind`);
    }
    ctx.state.project = found.project;
    ctx.state.keyId = found.keyId;
    await next();
  };
}
