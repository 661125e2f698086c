// Authentication as the spec fixes it: a Bearer access token for verify, x-api-key carrying a private key
// for intelligence and a public key for fingerprint. A valid key is always answered, however many failures
// its client address has (tenants behind one NAT or one proxy share it). A missing, malformed, unknown,
// revoked or wrong-kind key is a 401 counted against the address (failed-auth.ts), a 429 past its limit;
// a key of another kind is told by its public prefix, and where it belongs. A well-formed key that cannot
// be checked because the database is down is a 503 (errors.ts), never a 429.
import createError, { type HttpError } from 'http-errors';
import type { Context, Middleware, Next } from 'koa';
import type { KeyKind } from '../../store/keys.js';
import type { AppDeps } from '../app.js';
import { type FailedAuthLimit, failedAuthLimit } from './failed-auth.js';

const MAX_TOKEN_LENGTH = 256;

/** Where each kind of key goes: the spec's header and operation. */
const PLACES: Readonly<Record<KeyKind, { name: string; header: string; operation: string }>> = {
  access_token: { name: 'an access token', header: '"Authorization: Bearer <token>"', operation: 'POST /v1/public/verify' },
  private_key: { name: 'a private key', header: 'the x-api-key header', operation: 'POST /v1/intelligence' },
  public_key: { name: 'a public key', header: 'the x-api-key header', operation: 'POST /v1/fingerprint' },
};

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

const bearerToken = (ctx: Context): string => /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization').trim())?.[1] ?? '';
const apiKeyHeader = (ctx: Context): string => ctx.get('x-api-key').trim();

export function requireKey(deps: AppDeps, kind: KeyKind): Middleware {
  const place = PLACES[kind];
  const needed = `this operation needs ${place.name} in ${place.header}`;
  const limit = limitOf(deps);
  /** Counts the failure (a 429 past the limit), else the 401 to throw. */
  const failure = async (ctx: Context, message: string): Promise<HttpError> => {
    await limit.countFailure(ctx);
    return createError(401, message);
  };
  return async (ctx: Context, next: Next) => {
    const token = kind === 'access_token' ? bearerToken(ctx) : apiKeyHeader(ctx);
    if (!token) {
      const elsewhere = kind === 'access_token' ? apiKeyHeader(ctx) : bearerToken(ctx);
      throw await failure(ctx, `missing credentials: ${needed}${misplaced(deps, kind, elsewhere)}`);
    }
    const given = deps.access.kindOf(token);
    if (given !== kind) {
      const what = given ? belongsElsewhere(given) : 'this is not a key this service issues';
      throw await failure(ctx, `invalid credentials: ${what}; ${needed}`);
    }
    const found = token.length <= MAX_TOKEN_LENGTH ? await deps.access.authenticate(token, kind) : null;
    if (!found) throw await failure(ctx, `invalid credentials: the ${kind.replace('_', ' ')} is unknown or revoked`);
    ctx.state.project = found.project;
    ctx.state.keyId = found.keyId;
    await next();
  };
}

/** "this is a private key: it belongs in …", told by the token's prefix alone (whether it exists is not said). */
function belongsElsewhere(kind: KeyKind): string {
  const place = PLACES[kind];
  return `this is ${place.name}: it belongs in ${place.header} of ${place.operation}`;
}

/** What a key sent in the other header is, when the expected header is empty. */
function misplaced(deps: AppDeps, kind: KeyKind, elsewhere: string): string {
  if (!elsewhere) return '';
  const other = kind === 'access_token' ? 'the x-api-key header' : 'the Authorization header';
  const given = deps.access.kindOf(elsewhere);
  if (given === kind) return `; the one sent is in ${other}`;
  return given ? `; ${other} carries a key: ${belongsElsewhere(given)}` : '';
}
