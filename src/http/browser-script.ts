// GET /v1/fingerprint.js: the browser script (public/fingerprint.js) that obtains a fingerprint token,
// read once at start. Pages load it with a <script> tag, which needs no CORS; browsers keep it an hour,
// then revalidate it by ETag.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import { publicDir } from '../paths.js';

export const SCRIPT_MAX_AGE_SECONDS = 3600;

export function browserScript(): Middleware {
  const script = readFileSync(join(publicDir, 'fingerprint.js'));
  const etag = `"${createHash('sha256').update(script).digest('base64url').slice(0, 22)}"`;
  return (ctx) => {
    ctx.status = 200;
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set({
      'Cache-Control': `public, max-age=${SCRIPT_MAX_AGE_SECONDS}`,
      'X-Content-Type-Options': 'nosniff',
      // Pages isolated with Cross-Origin-Embedder-Policy may still load it.
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    ctx.etag = etag;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = script;
  };
}
