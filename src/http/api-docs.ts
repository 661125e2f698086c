// What a person or a tool finds by browsing the service: a home page at /, the OpenAPI document at
// GET /v1/openapi.json (serialised once), and /docs, Swagger UI rendering it from swagger-ui-dist
// files served here (no CDN). Pages carry a Content-Security-Policy that lets them load nothing from
// another origin; the UI's assets may be cached, the rest keeps the service's no-store.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { publicDir } from '../paths.js';
import type { OpenApiDocument } from './openapi/document.js';

export const ASSET_MAX_AGE_SECONDS = 86_400;

export const PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
export const HOME_CSP = `${PAGE_POLICY}; style-src 'unsafe-inline'; img-src 'self'`;
// Swagger UI draws its icons as data: SVG images and fetches the document from this origin; nothing inline
// (test/http/docs-browser.test.ts opens an operation and finds no refusal).
export const DOCS_CSP = `${PAGE_POLICY}; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'`;

export interface StaticFile {
  path: string;
  type: string;
  /** Cache-Control; the service's no-store when absent. */
  cache?: string;
  csp?: string;
}

export function addApiDocsRoutes(router: Router, document: OpenApiDocument): void {
  const json = JSON.stringify(document);
  router.get('/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = json;
  });
  const swaggerUi = swaggerUiDir();
  const asset = `public, max-age=${ASSET_MAX_AGE_SECONDS}`;
  router.get('/', staticFile({ path: join(publicDir, 'home.html'), type: 'text/html; charset=utf-8', csp: HOME_CSP }));
  router.get('/docs', staticFile({ path: join(publicDir, 'docs.html'), type: 'text/html; charset=utf-8', csp: DOCS_CSP }));
  router.get('/docs/docs.js', staticFile({ path: join(publicDir, 'docs.js'), type: 'text/javascript; charset=utf-8', cache: asset }));
  router.get('/docs/swagger-ui.css', staticFile({ path: join(swaggerUi, 'swagger-ui.css'), type: 'text/css; charset=utf-8', cache: asset }));
  router.get('/docs/favicon-32x32.png', staticFile({ path: join(swaggerUi, 'favicon-32x32.png'), type: 'image/png', cache: asset }));
  router.get('/docs/swagger-ui-bundle.js', staticFile({ path: join(swaggerUi, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8', cache: asset }));
}

/** Where npm installed swagger-ui-dist (resolved at start: a missing package stops the start). */
function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** A file read on first use and kept (the Swagger UI bundle is 1.5 MB: not read by instances nobody browses), with an ETag. */
export function staticFile(file: StaticFile): Middleware {
  let loaded: { body: Buffer; etag: string } | undefined;
  return (ctx) => {
    if (!loaded) {
      const body = readFileSync(file.path);
      loaded = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    }
    ctx.status = 200;
    ctx.type = file.type;
    if (file.cache) ctx.set('Cache-Control', file.cache);
    if (file.csp) ctx.set('Content-Security-Policy', file.csp);
    ctx.etag = loaded.etag;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = loaded.body;
  };
}
