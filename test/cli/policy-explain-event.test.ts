// From a blocked sign-up's X-Decision-Id to the rule that decided it (issue 49, "Done when"): a production
// project's verify over HTTP, then `policy explain --project P --event ID` in the CLI against the same
// SQLite file, replaying the event on its recorded facts under the revision that decided it (kept even
// after the project's policy changed) or under a candidate.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { runCli } from '../support/cli-run.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const PARTNER_POLICY = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  free_provider_domain: { mode: soft, action: challenge }
exemptions:
  - { name: partners, when: { domains: [example.net] }, from: [free_provider_domain] }
`;

let dir: string;
let server: TestServer;
let shop: CreatedProject;
const saved = process.env.DATABASE_URL;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-explain-event-'));
  const databaseUrl = `sqlite:${join(dir, 'service.sqlite')}`;
  server = await startService({ databaseUrl });
  shop = await server.createProject({ name: 'shop', policyYaml: PARTNER_POLICY });
  process.env.DATABASE_URL = databaseUrl;
});
afterEach(() => {
  process.env.DATABASE_URL = `sqlite:${join(dir, 'service.sqlite')}`;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function decided(email: string): Promise<string> {
  const res = await post(server.url, '/v1/public/verify', { email_address: email }, bearer(shop.keys.access_token));
  expect(res.status).toBe(200);
  return res.headers.get('x-decision-id') as string;
}

describe('policy explain --project --event', () => {
  it('goes from a blocked answer’s X-Decision-Id to the check that decided it, with the facts it saw', async () => {
    const id = await decided('jane@mailinator.com');
    const r = await runCli('policy', 'explain', '--project', 'shop', '--event', id);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^event \\d+ \\(decision ${id}\\) of project shop, \\S+: verify jane@mailinator\\.com -> block\\n`));
    expect(r.out).toContain('decided by policy shop revision');
    expect(r.out).toContain('errors: domain_is_disposable;');
    expect(r.out).toContain('replayed under the revision that decided it, on the facts it recorded: block\n');
    expect(r.out).toContain('[fired] disposable_domain  check, hard -> block (domain_is_disposable)');
    expect(r.out).toContain('is_disposable_domain equal true: saw true, held');
  });

  it('shows the exemption that let a partner through, by the numeric event id as well', async () => {
    await decided('jane@example.net');
    const listed = await server.service.store.events.list({ projectId: shop.project.id, limit: 1 });
    const event = listed.events[0]!;
    const r = await runCli('policy', 'explain', '--project', shop.project.id, '--event', String(event.id), '--json');
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.out);
    expect(answer.event).toMatchObject({ id: event.id, email: 'jane@example.net', action: 'allow' });
    expect(answer.policy.as).toBe('deciding');
    expect(answer.explanation.entries[0]).toMatchObject({ name: 'partners', kind: 'exemption', fired: true });
  });

  it('replays under the revision that decided, after the project moved to another policy; --policy names a candidate', async () => {
    const id = await decided('jane@gmail.com');
    const file = join(dir, 'stricter.yaml');
    await writeFile(file, 'version: "1.0"\nchecks:\n  free_provider_domain: { mode: hard, action: block }\n');
    expect((await runCli('project', 'update', 'shop', '--policy', 'default')).code).toBe(0);
    const asDecided = await runCli('policy', 'explain', '--project', 'shop', '--event', id);
    expect(asDecided.out).toContain('replayed under the revision that decided it, on the facts it recorded: challenge\n');
    const candidate = await runCli('policy', 'explain', '--project', 'shop', '--event', id, '--policy', file);
    expect(candidate.code).toBe(0);
    expect(candidate.out).toMatch(/replayed under candidate stricter\.yaml \(revision [0-9a-f]{16}\) on the facts it recorded: block \(was challenge\)/);
    expect(candidate.out).toContain('[fired] free_provider_domain  check, hard -> block (domain_is_free_provider)');
  });

  it('says what is wrong with an unknown event, another project’s event and options that do not go together', async () => {
    const unknown = await runCli('policy', 'explain', '--project', 'shop', '--event', '0190aaaa-0000-7000-8000-000000000000');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain(
      'error: no event "0190aaaa-0000-7000-8000-000000000000" in project shop: give its X-Decision-Id or its id from `email-trust events list --project shop`\n',
    );
    const other = await server.createProject({ name: 'other' });
    const id = await decided('jane@mailinator.com');
    const elsewhere = await runCli('policy', 'explain', '--project', other.project.name, '--event', id);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.err).toContain(`no event "${id}" in project other`);
    const lonely = await runCli('policy', 'explain', '--event', id);
    expect([lonely.code, lonely.err]).toEqual([2, 'error: --event and --project go together: the event, and the project it belongs to\n']);
    const mixed = await runCli('policy', 'explain', '--project', 'shop', '--event', id, '--email', 'a@example.com');
    expect(mixed.err).toBe('error: --event replays what the event stored: leave out --email\n');
    const neither = await runCli('policy', 'explain');
    expect(neither.err).toBe('error: policy explain needs --policy and --email (an address), or --project and --event (a stored decision)\n');
  });
});
