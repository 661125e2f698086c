// The pages a person finds by browsing the service: a home page at / that says what the service is and
// links the documentation, and /docs, Swagger UI rendering /v1/openapi.json from files this service
// serves itself. Every URL a page refers to is on this origin and answers with its real content type
// (nosniff would refuse anything else); a Content-Security-Policy keeps the pages from loading more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_MAX_AGE_SECONDS, DOCS_CSP, HOME_CSP } from '../../src/http/api-docs.js';
import { type Reply, send, startService, type TestServer } from '../support/server.js';
import { expectStatusError } from './contract.js';

let server: TestServer;
beforeAll(async () => {
  server = await startService();
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}): Promise<Reply> => send('GET', server.url, path, undefined, headers);

/** The URLs of a page's src and href attributes. */
function referencesOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1] as string);
}

describe('GET /', () => {
  it('is an HTML page that says what the service is', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>email-trust</title>');
    expect(res.text).toMatch(/email trust verification service/);
    expect(res.text).toContain('POST /v1/public/verify');
  });

  it('links the documentation, the OpenAPI document and the playground, which all answer', async () => {
    const links = referencesOf((await get('/')).text);
    expect(links).toEqual(['/docs/favicon-32x32.png', '/docs', '/v1/openapi.json', '/playground']);
    for (const link of links) expect((await get(link)).status).toBe(200);
  });

  it('may load nothing but its own inline style, and is not cached', async () => {
    const res = await get('/');
    expect(res.headers.get('content-security-policy')).toBe(HOME_CSP);
    expect(HOME_CSP).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await send('HEAD', server.url, '/');
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('POST / is a 405 naming the methods it takes, in the verify/ip error shape', async () => {
    const res = await send('POST', server.url, '/', {});
    expectStatusError(res, 405);
    expect(res.headers.get('allow')).toBe('HEAD, GET');
  });
});

describe('GET /docs', () => {
  it('is an HTML page whose scripts and styles are this service’s own files', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(referencesOf(res.text)).toEqual(['/docs/favicon-32x32.png', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/docs.js']);
  });

  it.each([
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8', /\.swagger-ui/],
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', /SwaggerUIBundle/],
    ['/docs/docs.js', 'text/javascript; charset=utf-8', /url: '\/v1\/openapi\.json'/],
    ['/docs/favicon-32x32.png', 'image/png', /^\uFFFDPNG/],
  ])('%s answers %s, cacheable', async (path, type, content) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('cache-control')).toBe(`public, max-age=${ASSET_MAX_AGE_SECONDS}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).toMatch(content);
  });

  it('its start script names only this origin: the document here, the online validator off', async () => {
    const script = (await get('/docs/docs.js')).text;
    expect(script).toContain('validatorUrl: null');
    expect(script).not.toMatch(/https?:\/\//);
  });

  it('an asset revalidated with its ETag is a 304 without a body', async () => {
    const etag = (await get('/docs/swagger-ui.css')).headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const res = await get('/docs/swagger-ui.css', { 'if-none-match': etag, 'cache-control': 'max-age=0' });
    expect(res.status).toBe(304);
    expect(res.text).toBe('');
  });

  it.each(['/docs/index.html', '/docs/swagger-initializer.js', '/docs/../package.json', '/docs/swagger-ui-bundle.js.map'])(
    '%s is not served (only the files the page uses)',
    async (path) => {
      expect((await get(path)).status).toBe(404);
    },
  );
});
