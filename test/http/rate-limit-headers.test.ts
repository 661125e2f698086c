// Every 429 carries the IETF RateLimit-Policy and RateLimit fields beside Retry-After (issue 46, point 8;
// draft-ietf-httpapi-ratelimit-headers-09's structured-field form): the per-second rate limits, the
// failed-authentication limit and the monthly quota, through the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

/** The three fields of a 429, parsed: `"name";q=…;w=…` and `"name";r=…;t=…`. */
function refusalFields(reply: Reply) {
  expect(reply.status).toBe(429);
  const policy = /^"([a-z_]+)";q=(\d+);w=(\d+)$/.exec(reply.headers.get('ratelimit-policy') ?? '');
  const state = /^"([a-z_]+)";r=(\d+);t=(\d+)$/.exec(reply.headers.get('ratelimit') ?? '');
  expect(policy, `RateLimit-Policy: ${reply.headers.get('ratelimit-policy')}`).not.toBeNull();
  expect(state, `RateLimit: ${reply.headers.get('ratelimit')}`).not.toBeNull();
  return {
    retryAfter: Number(reply.headers.get('retry-after')),
    policy: { name: policy?.[1], q: Number(policy?.[2]), w: Number(policy?.[3]) },
    state: { name: state?.[1], r: Number(state?.[2]), t: Number(state?.[3]) },
  };
}

describe('RateLimit-Policy and RateLimit on every 429', () => {
  let server: TestServer;
  let project: CreatedProject;
  // 2026-11-30 23:59:00 UTC: the quota renews in 60 s, at the end of a 30-day month.
  const clock = Date.UTC(2026, 10, 30, 23, 59, 0);
  beforeAll(async () => {
    server = await startService({
      env: { TRUST_PROXY: '1', RATE_LIMIT_VERIFY: '2', RATE_LIMIT_IP: '2', RATE_LIMIT_INTELLIGENCE: '1000', RATE_LIMIT_FAILED_AUTH: '3' },
      compose: { now: () => clock },
    });
    project = await server.createProject({ name: 'limited' });
  });
  afterAll(() => server.close());

  it('of a per-second rate limit: the limit by name, its quota per 1 s window, and the wait', async () => {
    const verify = () => post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(project.keys.access_token));
    let refused: Reply | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const reply = await verify();
      if (reply.status === 429) refused = reply;
    }
    const fields = refusalFields(refused as Reply);
    expect(fields.policy).toEqual({ name: 'verify', q: 2, w: 1 });
    expect(fields.state).toEqual({ name: 'verify', r: 0, t: fields.retryAfter });
    expect(fields.retryAfter).toBe(1);

    let ip: Reply | undefined;
    for (let i = 0; i < 10 && !ip; i++) {
      const reply = await post(server.url, '/v1/public/ip', undefined, { 'x-forwarded-for': '203.0.113.40' });
      if (reply.status === 429) ip = reply;
    }
    expect(refusalFields(ip as Reply).policy).toEqual({ name: 'ip', q: 2, w: 1 });
  });

  it('of the failed-authentication limit: its quota per 60 s window, t as Retry-After', async () => {
    const statuses: Reply[] = [];
    for (let n = 0; n < 4; n++) {
      statuses.push(
        await post(
          server.url,
          '/v1/public/verify',
          { email_address: 'a@example.com' },
          { ...bearer(`etv_at_${String(n).padStart(43, 'D')}`), 'x-forwarded-for': '203.0.113.41' },
        ),
      );
    }
    expect(statuses.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    const fields = refusalFields(statuses[3] as Reply);
    expect(fields.policy).toEqual({ name: 'failed_auth', q: 3, w: 60 });
    expect(fields.state).toEqual({ name: 'failed_auth', r: 0, t: fields.retryAfter });
    expect(fields.retryAfter).toBeGreaterThanOrEqual(1);
    expect(fields.retryAfter).toBeLessThanOrEqual(60);
  });

  it('of the monthly quota: its quota per calendar month, t the seconds until the next month', async () => {
    const shop = await server.createProject({ name: 'quota-shop' });
    await server.service.store.projects.update(shop.project.id, { monthlyQuota: 1 });
    const intelligence = () => post(server.url, '/v1/intelligence', { email_address: 'a@example.com' }, apiKey(shop.keys.private_key));
    expect((await intelligence()).status).toBe(200);
    const fields = refusalFields(await intelligence());
    expect(fields.policy).toEqual({ name: 'quota', q: 1, w: 30 * 86_400 });
    expect(fields.state).toEqual({ name: 'quota', r: 0, t: 60 });
    expect(fields.retryAfter).toBe(60);
  });
});
