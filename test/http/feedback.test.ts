// POST /v1/feedback (issue 50, point 1) on a SQLite file and on PostgreSQL: a label names one decision of
// the key's project, by X-Decision-Id, by event id or by address (with an IP); the same label again
// changes nothing, another replaces it with the earlier kept in history; the label counts under the
// decision's domain, network and device; bad input is a 400 naming the field, another project's decision
// a 404, a wrong key a 401, and the endpoint has its own rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { eventSubject } from '../../src/store/labels.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { expectNoInternals } from './contract.js';

const PLAIN_ERROR = { error: expect.any(String), code: expect.any(Number), id: expect.any(String) };

describe.each(['sqlite', 'postgres'] as const)('POST /v1/feedback on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  let other: CreatedProject;
  beforeAll(async () => {
    server = await startService({ database });
    shop = await server.createProject({ name: 'shop' });
    other = await server.createProject({ name: 'other' });
  });
  afterAll(() => server?.close());

  const verify = async (project: CreatedProject, body: Record<string, unknown>) => {
    const res = await post(server.url, '/v1/public/verify', body, bearer(project.keys.access_token));
    expect(res.status).toBe(200);
    return res.headers.get('x-decision-id') as string;
  };
  const feedback = (body: unknown, project: CreatedProject = shop) => post(server.url, '/v1/feedback', body, apiKey(project.keys.private_key));

  it('labels a decision by its X-Decision-Id: 201 with the stored label, then 200 unchanged, then 200 replaced with history kept', async () => {
    const decisionId = await verify(shop, { email_address: 'ring.member+1@fraud-ring.example', ipv4_address: '203.0.113.7' });
    const first = await feedback({ decision_id: decisionId, label: 'fraud', note: 'chargeback ring, ticket 88' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      outcome: 'created',
      label: 'fraud',
      note: 'chargeback ring, ticket 88',
      decision_id: decisionId,
      event_id: expect.any(Number),
      email_address: 'ring.member+1@fraud-ring.example',
      revision: 1,
      labelled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const again = await feedback({ decision_id: decisionId, label: 'fraud', note: 'chargeback ring, ticket 88' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ outcome: 'unchanged', label: 'fraud', revision: 1 });

    const replaced = await feedback({ decision_id: decisionId, label: 'legitimate' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ outcome: 'replaced', label: 'legitimate', note: null, revision: 2 });

    const { store } = server.service;
    const subject = eventSubject(first.body.event_id);
    expect(await store.labels.get(shop.project.id, subject)).toMatchObject({ label: 'legitimate', revision: 2, source: 'api', domain: 'fraud-ring.example' });
    expect((await store.labels.history(shop.project.id, subject)).map((h) => h.label)).toEqual(['fraud', 'legitimate']);
    // The replaced label no longer counts: the domain has one legitimate label and no fraud.
    const counts = await store.labels.counts({ kind: 'domain', subject: 'fraud-ring.example', projectIds: [shop.project.id], windowDays: 30, now: Date.now() });
    expect(counts.fraud).toEqual({ window: 0, total: 0 });
    expect(counts.legitimate).toEqual({ window: 1, total: 1 });
  });

  it('labels a decision by its event id, and the newest decision of an address (any variant) from an IP', async () => {
    await verify(shop, { email_address: 'Jo.Smith@gmail.com', ipv4_address: '198.51.100.1' });
    await verify(shop, { email_address: 'josmith+later@gmail.com', ipv4_address: '198.51.100.2' });
    const newest = await feedback({ email_address: 'jo.smith@gmail.com', label: 'bounced' });
    expect(newest.status).toBe(201);
    expect(newest.body.email_address).toBe('josmith+later@gmail.com');
    const fromIp = await feedback({ email_address: 'JOSMITH@gmail.com', ipv4_address: '198.51.100.1', label: 'spam_complaint' });
    expect(fromIp.status).toBe(201);
    expect(fromIp.body.email_address).toBe('Jo.Smith@gmail.com');

    const byEventId = await feedback({ decision_id: String(fromIp.body.event_id), label: 'spam_complaint' });
    expect(byEventId.status).toBe(200);
    expect(byEventId.body).toMatchObject({ outcome: 'unchanged', event_id: fromIp.body.event_id });
  });

  it('keeps one history row per stored change when calls race on one decision, and never answers 5xx', async () => {
    const decisionId = await verify(shop, { email_address: 'raced@race.example' });
    const labels = ['fraud', 'abuse', 'bounced', 'legitimate', 'chargeback', 'spam_trap'];
    const replies = await Promise.all(Array.from({ length: 24 }, (_, i) => feedback({ decision_id: decisionId, label: labels[i % labels.length] })));
    expect(
      replies.every((r) => [200, 201, 409].includes(r.status)),
      JSON.stringify(replies.map((r) => r.status)),
    ).toBe(true);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    const stored = replies.filter((r) => r.status !== 409 && r.body.outcome !== 'unchanged').length;
    const event = await server.service.store.events.findDecision(shop.project.id, decisionId);
    const history = await server.service.store.labels.history(shop.project.id, eventSubject(event?.id as number));
    expect(history).toHaveLength(stored);
    const current = await server.service.store.labels.get(shop.project.id, eventSubject(event?.id as number));
    expect(current?.revision).toBe(stored);
    expect(current?.label).toBe(history.at(-1)?.label);
  });

  it('answers 404 for a decision of another project, an unknown id, and an address without decisions', async () => {
    const theirs = await verify(other, { email_address: 'someone@example.org' });
    for (const body of [
      { decision_id: theirs, label: 'fraud' },
      { decision_id: '0190a8b2-0000-7000-8000-000000000000', label: 'fraud' },
      { email_address: 'someone@example.org', label: 'fraud' },
      { email_address: 'never.seen@example.net', label: 'fraud' },
    ]) {
      const res = await feedback(body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toEqual({ ...PLAIN_ERROR, code: 404 });
      expect(res.body.error).toMatch(/^(decision_id|email_address): no decision of this project/);
    }
    const theirEvent = await server.service.store.events.findDecision(other.project.id, theirs);
    const byEventId = await feedback({ decision_id: String(theirEvent?.id), label: 'fraud' });
    expect(byEventId.status).toBe(404);
    expect(await server.service.store.labels.list({ projectId: other.project.id, limit: 10 })).toEqual([]);
  });

  it.each([
    [{ label: 'fraud' }, /^decision_id: is required/],
    [{ decision_id: 'x', email_address: 'a@b.example', label: 'fraud' }, /^decision_id: name the decision by decision_id or by email_address, not both/],
    [{ decision_id: 'x', ipv4_address: '192.0.2.1', label: 'fraud' }, /^ipv4_address: names a decision only with email_address/],
    [
      { email_address: 'a@b.example', ipv4_address: '192.0.2.1', ipv6_address: '2001:db8::1', label: 'fraud' },
      /^ipv6_address: give ipv4_address or ipv6_address/,
    ],
    [{ email_address: 'a@b.example' }, /^label: is required/],
    [{ email_address: 'a@b.example', label: 'scam' }, /^label: must be one of: fraud, abuse, spam_complaint, bounced, spam_trap, chargeback, legitimate/],
    [{ email_address: 'a@b.example', label: 'fraud', note: 'x'.repeat(501) }, /^note: must NOT have more than 500 characters/],
    [{ email_address: 'a@b.example', label: 'fraud', ipv4_address: '999.1.1.1' }, /^ipv4_address: is not a valid IPv4 address/],
    [{ email_address: 'a@b.example', label: 'fraud', reason: 'x' }, /^reason: unknown field "reason"/],
    [{ decision_id: '', label: 'fraud' }, /^decision_id: must NOT have fewer than 1 characters/],
    [[1, 2], /^request body must be a JSON object/],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const res = await feedback(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ...PLAIN_ERROR, code: 400 });
    expect(res.body.error).toMatch(message);
    expectNoInternals(res.body, JSON.stringify(body));
  });

  it('answers 401 without the private key, and for the access token', async () => {
    const none = await post(server.url, '/v1/feedback', { email_address: 'a@b.example', label: 'fraud' });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ ...PLAIN_ERROR, code: 401 });
    const token = await post(server.url, '/v1/feedback', { email_address: 'a@b.example', label: 'fraud' }, apiKey(shop.keys.access_token));
    expect(token.status).toBe(401);
  });
});

describe('POST /v1/feedback rate limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { RATE_LIMIT_FEEDBACK: '2' } });
  });
  afterAll(() => server?.close());

  it('answers 429 past RATE_LIMIT_FEEDBACK per second, with Retry-After, and counts apart from intelligence', async () => {
    const { keys } = await server.createProject({ name: 'limited' });
    const call = () => post(server.url, '/v1/feedback', { email_address: 'nobody@example.com', label: 'fraud' }, apiKey(keys.private_key));
    let refused: Reply | undefined;
    const answered: number[] = [];
    for (let i = 0; i < 10 && !refused; i++) {
      const reply = await call();
      if (reply.status === 429) refused = reply;
      else answered.push(reply.status);
    }
    expect(answered).toContain(404);
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('ratelimit-policy')).toBe('"feedback";q=2;w=1');
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused?.body).toEqual({ ...PLAIN_ERROR, code: 429 });
    const intelligence = await post(server.url, '/v1/intelligence', { email_address: 'nobody@example.com' }, apiKey(keys.private_key));
    expect(intelligence.status).toBe(200);
  });
});
