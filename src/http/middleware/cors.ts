// CORS for POST /v1/fingerprint, the one operation browser pages call (with a public key); the others
// carry secret keys and answer no CORS headers at all. A preflight carries no key, so it is answered
// for an origin any project allows; the POST itself, errors included, lets the page read the answer
// only when the authenticated project allows the origin (before authentication: any project).
import type { Middleware } from 'koa';
import { type BrowserOrigins, projectAllowsOrigin } from '../../service/browser-origins.js';
import type { Project } from '../../store/projects.js';

/** How long a browser may reuse a preflight answer (Chromium caps it at 7,200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function fingerprintPreflight(origins: BrowserOrigins): Middleware {
  return async (ctx) => {
    ctx.vary('Origin');
    ctx.status = 204;
    const origin = ctx.get('origin');
    if (!origin || !(await origins.anyAllowsOrigin(origin))) return;
    ctx.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'content-type, x-api-key',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    });
  };
}

export function fingerprintCors(origins: BrowserOrigins): Middleware {
  return async (ctx, next) => {
    ctx.vary('Origin');
    const origin = ctx.get('origin');
    if (!origin) return next();
    try {
      await next();
    } finally {
      const project = ctx.state.project as Project | undefined;
      const allowed = project ? projectAllowsOrigin(project, origin) : await origins.anyAllowsOrigin(origin);
      if (allowed) ctx.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'Retry-After, RateLimit-Policy, RateLimit' });
    }
  };
}
