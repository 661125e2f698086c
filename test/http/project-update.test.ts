// A project's policy changed while the service runs: verify answers by the new policy and new events
// name its revision. A change made in this process applies at once; one made by another process
// (`email-trust project update`) within 5 s, when the cached key lookup holding the project expires.
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';
import { fixturePolicy } from './contract.js';

let server: TestServer;
let project: CreatedProject;
const savedDatabaseUrl = process.env.DATABASE_URL;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'changing' });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(async () => {
  if (savedDatabaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = savedDatabaseUrl;
  await server.close();
});

const verify = () => post(server.url, '/v1/public/verify', { email_address: 'jane+news@example.com', show_results: true }, bearer(project.keys.access_token));

/** The policy revision of each of the project's events, oldest first, read from the table. */
async function eventRevisions(): Promise<string[]> {
  const rows = await server.service.store.knex('events').where({ project_id: project.project.id }).orderBy('id').select('policy_revision');
  return rows.map((row: { policy_revision: string }) => row.policy_revision);
}

const revisionOf = (policy: string, policySource: string | null) => server.service.policies.forProject({ policy, policySource }).revision;

it('answers by the new policy at once when the change is made in this process; new events carry its revision', async () => {
  const before = await verify();
  expect(before.status).toBe(200);
  expect(before.body).toMatchObject({ action: 'allow', warnings: ['local_contains_plus_symbol'], errors: [] });

  const updated = await server.service.store.projects.update(project.project.id, { policy: 'plus-hard', policySource: fixturePolicy('plus-hard') });
  expect(updated?.policy).toBe('plus-hard');
  const after = await verify();
  expect(after.status).toBe(200);
  expect(after.body).toMatchObject({ action: 'block', errors: ['local_contains_plus_symbol'] });

  const [defaultRevision, plusHardRevision] = [revisionOf('default', null), revisionOf('plus-hard', fixturePolicy('plus-hard'))];
  expect(defaultRevision).not.toBe(plusHardRevision);
  expect(await eventRevisions()).toEqual([defaultRevision, plusHardRevision]);
});

it('applies `email-trust project update` made by another process within 5 s', async () => {
  const file = fileURLToPath(new URL('../fixtures/policies/plus-soft.yaml', import.meta.url));
  vi.useFakeTimers({ toFake: ['Date'] });
  const start = Date.now();
  expect((await verify()).body.action).toBe('block'); // the project is now cached with this key's lookup

  process.env.DATABASE_URL = server.service.config.databaseUrl;
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  expect(await main(['project', 'update', 'changing', '--policy', file, '--json'])).toBe(0);
  expect(JSON.parse(printed.join(''))).toEqual({ project: { ...project.project, policy: 'plus-soft' } });

  vi.setSystemTime(start + 4_000);
  expect((await verify()).body.action).toBe('block');
  vi.setSystemTime(start + 5_001);
  const after = await verify();
  expect(after.body).toMatchObject({ action: 'allow', warnings: ['local_contains_plus_symbol'], errors: [] });
  expect((await eventRevisions()).slice(-3)).toEqual([
    revisionOf('plus-hard', fixturePolicy('plus-hard')),
    revisionOf('plus-hard', fixturePolicy('plus-hard')),
    revisionOf('plus-soft', fixturePolicy('plus-soft')),
  ]);
});
