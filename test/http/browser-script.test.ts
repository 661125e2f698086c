// GET /v1/fingerprint.js: the browser script as a file the service serves, with the content type and
// cache headers a <script> tag needs (test/http/browser.test.ts runs it in Chromium).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startService, type TestServer } from '../support/server.js';

const SCRIPT = readFileSync(fileURLToPath(new URL('../../public/fingerprint.js', import.meta.url)), 'utf8');

describe('GET /v1/fingerprint.js', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server.close());

  it('serves public/fingerprint.js as JavaScript that browsers may keep for an hour', async () => {
    const res = await send('GET', server.url, '/v1/fingerprint.js', undefined, { origin: 'https://anywhere.test' });
    expect(res.status).toBe(200);
    expect(res.text).toBe(SCRIPT);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    // A <script> tag needs no CORS.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers 304 without a body when the browser revalidates with the ETag', async () => {
    const etag = (await send('GET', server.url, '/v1/fingerprint.js')).headers.get('etag') ?? '';
    // As a browser revalidates; fetch alone would add `Cache-Control: no-cache` to a conditional request.
    const revalidate = { 'if-none-match': etag, 'cache-control': 'max-age=0' };
    const res = await send('GET', server.url, '/v1/fingerprint.js', undefined, revalidate);
    expect(res.status).toBe(304);
    expect(res.text).toBe('');
    expect((await send('GET', server.url, '/v1/fingerprint.js', undefined, { ...revalidate, 'if-none-match': '"other"' })).status).toBe(200);
  });
});

describe('public/fingerprint.js', () => {
  // ES2017 for older browsers; Biome's optional-chain rule is off for public/ (biome.json) for this reason.
  it.each([
    ['optional chaining', /\?\.[A-Za-z_[(]/],
    ['nullish coalescing', /\?\?/],
    ['object spread or rest', /[{,]\s*\.\.\./],
    ['a catch without a binding', /catch\s*\{/],
  ])('uses no syntax newer than ES2017: no %s', (_label, syntax) => {
    expect(SCRIPT).not.toMatch(syntax);
  });
});
