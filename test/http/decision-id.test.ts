// X-Decision-Id (issue 49, point 4): every verify and intelligence answer names its stored decision, on a
// SQLite file and on PostgreSQL. The id finds the event, which holds the request's X-Request-Id, the codes,
// the policy's name and revision; the revision's text is stored before the event; the body keeps its shape.
// A refused call carries no decision id, and a revision whose text cannot be stored fails the call as an
// event that cannot be stored does (503), the next call storing it.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { policiesDir } from '../../src/paths.js';
import { policyRevision } from '../../src/policy/load.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const POLICY = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: allow_with_review }
intelligence:
  parent_rules:
    - { field: domain_disposable, operator: "==", target: { bool: true }, action: block }
    - { field: email_role_based, operator: "==", target: { bool: true }, action: allow }
`;

describe.each(['sqlite', 'postgres'] as const)('X-Decision-Id on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  beforeAll(async () => {
    server = await startService({ database });
    shop = await server.createProject({ name: 'shop', policyYaml: POLICY });
  });
  afterAll(() => server?.close());

  const verify = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(server.url, '/v1/public/verify', body, { ...bearer(shop.keys.access_token), ...headers });

  it('names the stored event of a verify, which holds the request id, the codes and the policy revision, whose text is stored', async () => {
    const res = await verify({ email_address: 'Info+x@Mailinator.com', show_results: true }, { 'x-request-id': 'support-ticket-17' });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-decision-id') as string;
    expect(id).toMatch(UUID_V7);
    expect(res.headers.get('x-request-id')).toBe('support-ticket-17');
    expect(res.text).not.toContain(id);
    expect(res.body).toMatchObject({ action: 'block', errors: ['domain_is_disposable'], warnings: ['local_is_role_based'] });
    const event = await server.service.store.events.findDecision(shop.project.id, id);
    expect(event).toMatchObject({
      decisionId: id,
      requestId: 'support-ticket-17',
      endpoint: 'verify',
      email: 'Info+x@Mailinator.com',
      action: 'block',
      errors: ['domain_is_disposable'],
      warnings: ['local_is_role_based'],
      policyName: 'shop',
      policyRevision: policyRevision(POLICY),
    });
    expect((await server.service.store.policyRevisions.get(policyRevision(POLICY)))?.source).toBe(POLICY);
  });

  it('stores the text of a named policy as its file holds it', async () => {
    const named = await server.createProject({ name: 'named' });
    const res = await post(server.url, '/v1/public/verify', { email_address: 'd@example.com' }, bearer(named.keys.access_token));
    const event = await server.service.store.events.findDecision(named.project.id, res.headers.get('x-decision-id') as string);
    expect(event?.policyName).toBe('default');
    const text = readFileSync(join(policiesDir, 'default.yaml'), 'utf8');
    expect(event?.policyRevision).toBe(policyRevision(text));
    expect((await server.service.store.policyRevisions.get(policyRevision(text)))?.source).toBe(text);
  });

  it('gives each decision its own id, later ones sorting after earlier ones, and a generated request id', async () => {
    const first = await verify({ email_address: 'a@example.com' });
    const second = await verify({ email_address: 'b@example.com' });
    const [a, b] = [first.headers.get('x-decision-id') as string, second.headers.get('x-decision-id') as string];
    expect(a < b).toBe(true);
    const event = await server.service.store.events.findDecision(shop.project.id, b);
    expect(event).toMatchObject({ email: 'b@example.com', action: 'allow', errors: [], warnings: [], requestId: second.headers.get('x-request-id') });
  });

  it('names the stored event of an intelligence call, with the parent rule that decided', async () => {
    const res = await post(server.url, '/v1/intelligence', { email_address: 'sales@example.com' }, apiKey(shop.keys.private_key));
    expect(res.status).toBe(200);
    expect(res.body.parent_rule).toMatchObject({ index: 1, action: 'allow' });
    const id = res.headers.get('x-decision-id') as string;
    expect(id).toMatch(UUID_V7);
    expect(res.text).not.toContain(id);
    const event = await server.service.store.events.findDecision(shop.project.id, id);
    expect(event).toMatchObject({ endpoint: 'intelligence', action: 'allow', parentRule: 1, policyName: 'shop', policyRevision: policyRevision(POLICY) });
  });

  it('is not given to a refused call', async () => {
    const refused = [
      await verify({ emial: 'a@example.com' }),
      await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }),
      await post(server.url, '/v1/intelligence', { email_address: 'a@example.com' }, apiKey(shop.keys.access_token)),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 401, 401]);
    for (const r of refused) expect(r.headers.get('x-decision-id')).toBeNull();
  });

  it('answers 503 without storing the event while a revision’s text cannot be stored, and stores it on the next call', async () => {
    const revisions = server.service.store.policyRevisions;
    const remember = revisions.remember;
    const other = await server.createProject({ name: 'other', policyYaml: `${POLICY}# another revision\n` });
    revisions.remember = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    const down = await post(server.url, '/v1/public/verify', { email_address: 'c@example.com' }, bearer(other.keys.access_token));
    revisions.remember = remember;
    expect(down.status).toBe(503);
    expect(down.headers.get('x-decision-id')).toBeNull();
    expect((await server.service.store.events.list({ projectId: other.project.id, limit: 10 })).events).toEqual([]);
    const up = await post(server.url, '/v1/public/verify', { email_address: 'c@example.com' }, bearer(other.keys.access_token));
    expect(up.status).toBe(200);
    expect(await server.service.store.events.findDecision(other.project.id, up.headers.get('x-decision-id') as string)).toMatchObject({
      email: 'c@example.com',
    });
    expect((await revisions.get(policyRevision(`${POLICY}# another revision\n`)))?.source).toBe(`${POLICY}# another revision\n`);
  });
});

describe('a named policy whose file changed before its first decision', () => {
  let dir: string;
  let server: TestServer;
  const TEXT = 'version: "1.0"\ndefault_action: allow\nchecks:\n  structure: { mode: hard, action: block }\n';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-trust-decision-'));
    await writeFile(join(dir, 'mine.yaml'), TEXT);
    server = await startService({ env: { POLICIES_DIR: dir } });
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the text the deciding revision was compiled from, not the file as it is now', async () => {
    const mine = await server.createProject({ name: 'mine' });
    await server.service.store.projects.update(mine.project.id, { policy: 'mine' });
    // Not a policy any longer: the service keeps deciding by the revision it compiled at start.
    await writeFile(join(dir, 'mine.yaml'), 'version: [');
    const res = await post(server.url, '/v1/public/verify', { email_address: 'e@example.com' }, bearer(mine.keys.access_token));
    expect(res.status).toBe(200);
    const event = await server.service.store.events.findDecision(mine.project.id, res.headers.get('x-decision-id') as string);
    expect(event).toMatchObject({ policyName: 'mine', policyRevision: policyRevision(TEXT) });
    expect((await server.service.store.policyRevisions.get(policyRevision(TEXT)))?.source).toBe(TEXT);
  });
});
