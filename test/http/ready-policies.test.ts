// The ready policies as an analyst selects them: `email-trust project create --policy <name>` stores the
// project with that policy, and verify over HTTP answers by it. One row per shipped policy, each an address
// whose answer differs from the default policy's.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

let server: TestServer;
const savedDatabaseUrl = process.env.DATABASE_URL;

beforeAll(async () => {
  server = await startService();
  process.env.DATABASE_URL = server.service.config.databaseUrl;
});
afterAll(async () => {
  if (savedDatabaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = savedDatabaseUrl;
  await server.close();
});

/** `email-trust project create --name <policy>-shop --policy <policy> --json`: the project and its keys, as printed. */
async function createProject(policy: string): Promise<{ project: { id: string; policy: string }; keys: { access_token: string } }> {
  const printed: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  try {
    expect(await main(['project', 'create', '--name', `${policy}-shop`, '--policy', policy, '--json'])).toBe(0);
  } finally {
    spy.mockRestore();
  }
  return JSON.parse(printed.join(''));
}

const ROWS = [
  {
    policy: 'default',
    request: { email_address: 'support@example.com' },
    expected: { action: 'allow_with_review', errors: [], warnings: ['local_is_role_based'], is_role_based_domain: true },
  },
  {
    policy: 'strict-signup',
    request: { email_address: 'jane.doe@example.com', ipv4_address: '5.148.160.1' },
    // The hosting range's AS is a hosting provider's too (plugins/ip-network): a warning beside the block.
    expected: { action: 'block', errors: ['ip_is_datacenter'], warnings: ['hosting_network_detected'] },
  },
  {
    policy: 'lenient-newsletter',
    request: { email_address: 'x7kq2m9vz3p8@example.com' },
    expected: { action: 'allow', errors: [], warnings: ['fraud_pattern_detected'] },
  },
  {
    policy: 'b2b-only',
    request: { email_address: 'jane.doe@gmail.com' },
    expected: { action: 'challenge', errors: [], warnings: ['domain_is_free_provider'], is_free_provider_domain: true },
  },
];

describe('project create --policy <ready policy>, then verify over HTTP', () => {
  it.each(ROWS.map((row) => [row.policy, row.request.email_address, row] as const))('%s: %s', async (policy, _email, row) => {
    const created = await createProject(policy);
    expect(created.project.policy).toBe(policy);
    expect((await server.service.store.projects.getByName(`${policy}-shop`))?.policy).toBe(policy);

    const res = await post(server.url, '/v1/public/verify', { ...row.request, show_results: true }, bearer(created.keys.access_token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(row.expected);
  });
});
