// CORS on POST /v1/fingerprint: real preflight requests (OPTIONS with Origin and
// Access-Control-Request-*) are answered for origins some project allows; the POST, errors included,
// carries Access-Control-Allow-Origin only when the key's project allows the origin. No other
// operation answers CORS: they carry secret keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, type Reply, send, startService, type TestServer } from '../support/server.js';
import { expectPlainError } from './contract.js';

const SHOP = 'http://shop.test:3000';
const ELSEWHERE = 'https://elsewhere.test';

const preflight = (server: TestServer, origin: string | undefined, path = '/v1/fingerprint'): Promise<Reply> =>
  send('OPTIONS', server.url, path, undefined, {
    ...(origin === undefined ? {} : { origin }),
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type,x-api-key',
  });

const fingerprint = (server: TestServer, key: string, origin: string | undefined, body: unknown = {}): Promise<Reply> =>
  post(server.url, '/v1/fingerprint', body, { ...apiKey(key), ...(origin === undefined ? {} : { origin }) });

const allowOrigin = (reply: Reply) => reply.headers.get('access-control-allow-origin');

function expectVaryOrigin(reply: Reply): void {
  expect(reply.headers.get('vary')?.split(/,\s*/)).toContain('Origin');
}

describe('CORS on /v1/fingerprint', () => {
  let server: TestServer;
  let shop: CreatedProject;
  let closed: CreatedProject;
  beforeAll(async () => {
    server = await startService();
    shop = await server.createProject({ name: 'shop' });
    closed = await server.createProject({ name: 'closed' });
    await server.service.store.projects.update(shop.project.id, { allowedOrigins: [SHOP] });
  });
  afterAll(() => server.close());

  describe('preflight (OPTIONS, no key)', () => {
    it('answers 204 with the CORS headers for an origin a project allows', async () => {
      const res = await preflight(server, SHOP);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(allowOrigin(res)).toBe(SHOP);
      expect(res.headers.get('access-control-allow-methods')).toBe('POST');
      expect(res.headers.get('access-control-allow-headers')?.split(/,\s*/).sort()).toEqual(['content-type', 'x-api-key']);
      expect(res.headers.get('access-control-max-age')).toBe('600');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expectVaryOrigin(res);
    });

    it.each([
      ['an origin no project allows', ELSEWHERE],
      ['the allowed origin on another port', 'http://shop.test:3001'],
      ['the allowed origin over https', 'https://shop.test:3000'],
      ['the literal null origin', 'null'],
      ['no Origin header', undefined],
    ])('answers no Access-Control-Allow-Origin for %s, so the browser refuses', async (_label, origin) => {
      const res = await preflight(server, origin);
      expect(res.status).toBe(204);
      expect(allowOrigin(res)).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
      expectVaryOrigin(res);
    });

    it('follows set-origins at once in this process', async () => {
      const origin = 'https://late.test';
      expect(allowOrigin(await preflight(server, origin))).toBeNull();
      await server.service.store.projects.update(closed.project.id, { allowedOrigins: [origin] });
      expect(allowOrigin(await preflight(server, origin))).toBe(origin);
      await server.service.store.projects.update(closed.project.id, { allowedOrigins: [] });
      expect(allowOrigin(await preflight(server, origin))).toBeNull();
    });
  });

  describe('POST', () => {
    it('lets a page on an allowed origin read the token', async () => {
      const res = await fingerprint(server, shop.keys.public_key, SHOP);
      expect(res.status).toBe(200);
      expect(res.body.fingerprint).toMatch(/^fp1\./);
      expect(allowOrigin(res)).toBe(SHOP);
      expectVaryOrigin(res);
    });

    it("sets no Access-Control-Allow-Origin when the key's project does not allow the origin, even if another project does", async () => {
      const res = await fingerprint(server, closed.keys.public_key, SHOP);
      expect(res.status).toBe(200);
      expect(allowOrigin(res)).toBeNull();
      expectVaryOrigin(res);
    });

    it('sets none for an origin nobody allows, and none without an Origin header (a server calling)', async () => {
      expect(allowOrigin(await fingerprint(server, shop.keys.public_key, ELSEWHERE))).toBeNull();
      const serverSide = await fingerprint(server, shop.keys.public_key, undefined);
      expect(serverSide.status).toBe(200);
      expect(allowOrigin(serverSide)).toBeNull();
    });

    it('lets an allowed page read a 401 (the unknown key names no project: any project allowing the origin counts)', async () => {
      const res = await fingerprint(server, 'etv_pk_unknown', SHOP);
      expectPlainError(res, 401);
      expect(allowOrigin(res)).toBe(SHOP);
      expect(allowOrigin(await fingerprint(server, 'etv_pk_unknown', ELSEWHERE))).toBeNull();
    });

    it('lets an allowed page read a 400', async () => {
      const res = await fingerprint(server, shop.keys.public_key, SHOP, { unexpected: true });
      expectPlainError(res, 400);
      expect(allowOrigin(res)).toBe(SHOP);
      expect(allowOrigin(await fingerprint(server, closed.keys.public_key, SHOP, { unexpected: true }))).toBeNull();
    });
  });

  it.each([
    ['/v1/intelligence', (p: CreatedProject) => apiKey(p.keys.private_key), { email_address: 'a@example.com' }],
    ['/v1/public/verify', (p: CreatedProject) => bearer(p.keys.access_token), { email_address: 'a@example.com' }],
    ['/v1/public/ip', () => ({}), undefined],
  ])('%s answers no CORS, neither to a preflight nor to the call, even from an allowed origin', async (path, auth, body) => {
    const pre = await preflight(server, SHOP, path);
    expect(allowOrigin(pre)).toBeNull();
    expect(pre.headers.get('access-control-allow-methods')).toBeNull();
    const res = await post(server.url, path, body, { ...auth(shop), origin: SHOP });
    expect(res.status).toBe(200);
    expect(allowOrigin(res)).toBeNull();
  });
});

describe('CORS on a refused /v1/fingerprint (RATE_LIMIT_FINGERPRINT=1)', () => {
  let server: TestServer;
  let shop: CreatedProject;
  beforeAll(async () => {
    server = await startService({ env: { RATE_LIMIT_FINGERPRINT: '1' } });
    shop = await server.createProject({ name: 'shop' });
    await server.service.store.projects.update(shop.project.id, { allowedOrigins: [SHOP] });
  });
  afterAll(() => server.close());

  it('lets an allowed page read the 429, its Retry-After and its RateLimit headers', async () => {
    const replies = await Promise.all([1, 2].map(() => fingerprint(server, shop.keys.public_key, SHOP)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 429]);
    const refused = replies.find((r) => r.status === 429) as Reply;
    expectPlainError(refused, 429);
    expect(allowOrigin(refused)).toBe(SHOP);
    expect(refused.headers.get('access-control-expose-headers')).toBe('Retry-After, RateLimit-Policy, RateLimit');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toMatch(/^"fingerprint";q=1;w=1/);
  });
});
