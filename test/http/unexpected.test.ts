// 500: an operation that throws answers a tracking id and a message that reveals nothing inside.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError, expectStatusError } from './contract.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('a project whose policy does not exist', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server.close());

  it('answers 500 {code, error, id, status: false} on verify, quoting the id and nothing else', async () => {
    const broken = await createProjectWithKeys(server.service.store, { name: 'broken-policy', policy: 'no-such-policy' });
    const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(broken.keys.access_token));
    expectStatusError(res, 500);
    expect(res.body.id).toMatch(UUID);
    expect(res.body.error).toContain(res.body.id);
    expect(res.body.error).not.toMatch(/no-such-policy|policies|folder|Error/);
    // Every 500 gets its own id.
    const again = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(broken.keys.access_token));
    expect(again.body.id).not.toBe(res.body.id);
  });
});

describe('a store that has gone away', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(() => server.close());

  it('answers 500 on verify and intelligence (in their own shapes) without internals', async () => {
    const project = await server.createProject({ name: 'store-gone' });
    // Authenticate once so the keys are cached; then the operations themselves hit the closed store.
    expect((await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(project.keys.access_token))).status).toBe(200);
    expect((await post(server.url, '/v1/intelligence', { email_address: 'a@example.com' }, apiKey(project.keys.private_key))).status).toBe(200);
    await server.service.store.close(); // every connection: knex's and the SQLite file's own reader and writer

    const verify = await post(
      server.url,
      '/v1/public/verify',
      { email_address: 'b@example.com', ipv4_address: '192.0.2.1' },
      bearer(project.keys.access_token),
    );
    expectStatusError(verify, 500);
    expect(verify.body.error).toContain(verify.body.id);

    const intelligence = await post(server.url, '/v1/intelligence', { email_address: 'b@example.com' }, apiKey(project.keys.private_key));
    expectPlainError(intelligence, 500);
    expect(intelligence.body.error).toMatch(/unexpected error/);
  });

  it('answers 500 when authentication itself cannot reach the store', async () => {
    const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(`etv_at_${'N'.repeat(43)}`));
    expectStatusError(res, 500);
  });
});
