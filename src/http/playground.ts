// The policy playground: a static page at /playground (public/playground.*), the Ace editor served from
// the ace-builds package (no CDN), and two calls taking a sandbox project's access token:
// GET /v1/playground/policy (the project's policy source) and POST /v1/playground/evaluate (a policy text
// compiled aside and one address decided by it). The page loads nothing from another origin and runs
// no inline script or style (Ace in its strict-CSP mode, its styles from files).
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import createError from 'http-errors';
import type { Middleware } from 'koa';
import { publicDir } from '../paths.js';
import { PolicyCheckUnavailable } from '../policy/check-thread.js';
import { POLICY_LIMITS } from '../policy/limits.js';
import type { Operations } from '../service/operations.js';
import type { PlaygroundRequest } from '../service/playground.js';
import { ASSET_MAX_AGE_SECONDS, PAGE_POLICY, staticFile } from './api-docs.js';
import { validBody } from './middleware/validate.js';

export const PLAYGROUND_EVALUATE_PATH = '/v1/playground/evaluate';

/** A whole policy travels in the body: a policy file's limit, with room for its JSON escaping. */
export const PLAYGROUND_BODY_LIMIT_BYTES = 2 * POLICY_LIMITS.bytes;

/** The images ace.css and the textmate theme refer to. */
const ACE_IMAGE = /^(main|textmate)-\d+\.(png|svg)$/;

export const PLAYGROUND_CSP = `${PAGE_POLICY}; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'`;

/** `access`: the authentication and rate limit a verify call gets (an access token, the verify limit). */
export function addPlaygroundRoutes(router: Router, operations: Operations, access: Middleware[]): void {
  const ace = aceDir();
  const asset = `public, max-age=${ASSET_MAX_AGE_SECONDS}`;
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  router.get('/playground', staticFile({ path: join(publicDir, 'playground.html'), type: 'text/html; charset=utf-8', csp: PLAYGROUND_CSP }));
  router.get('/playground/playground.js', staticFile({ path: join(publicDir, 'playground.js'), type: js, cache: asset }));
  router.get('/playground/playground.css', staticFile({ path: join(publicDir, 'playground.css'), type: css, cache: asset }));
  router.get('/playground/ace/ace.js', staticFile({ path: join(ace, 'src-min-noconflict', 'ace.js'), type: js, cache: asset }));
  router.get('/playground/ace/mode-yaml.js', staticFile({ path: join(ace, 'src-min-noconflict', 'mode-yaml.js'), type: js, cache: asset }));
  router.get('/playground/ace/ace.css', staticFile({ path: join(ace, 'css', 'ace.css'), type: css, cache: asset }));
  // Where the CSS files are, relative to each other: ace.css and the theme name their images by relative URL.
  router.get('/playground/ace/theme/textmate.css', staticFile({ path: join(ace, 'css', 'theme', 'textmate.css'), type: css, cache: asset }));
  // One route for the ~120 images, not one each: the router tests every route's pattern on every request.
  const images = new Map<string, Middleware>();
  for (const image of readdirSync(join(ace, 'css')).filter((f) => ACE_IMAGE.test(f))) {
    const type = image.endsWith('.svg') ? 'image/svg+xml' : 'image/png';
    images.set(image, staticFile({ path: join(ace, 'css', image), type, cache: asset }));
  }
  router.get('/playground/ace/:image', (ctx, next) => {
    const serve = images.get(ctx.params.image as string);
    return serve ? serve(ctx, next) : next();
  });

  router.get('/v1/playground/policy', ...access, (ctx) => {
    ctx.body = operations.playgroundPolicy(ctx.state.project);
  });
  router.post(PLAYGROUND_EVALUATE_PATH, ...access, async (ctx) => {
    const request = validBody<PlaygroundRequest>(ctx, 'playground-evaluate-request');
    try {
      ctx.body = await operations.playgroundEvaluate(ctx.state.project, request);
    } catch (error) {
      if (!(error instanceof PolicyCheckUnavailable)) throw error;
      ctx.set('Retry-After', String(error.retryAfterSeconds));
      throw createError(503, `service unavailable: ${error.message}`, { expose: true });
    }
  });
}

/** Where npm installed ace-builds (resolved at start: a missing package stops the start). */
function aceDir(): string {
  return dirname(createRequire(import.meta.url).resolve('ace-builds/package.json'));
}
