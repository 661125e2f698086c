// Reputation facts over HTTP, with the real app: a sign-up is verified, POST /v1/feedback labels its decision
// fraud, and a second sign-up from the same domain shows domain_reported_count 1 in analyzed_data under the
// default policy; a policy rule on the fact challenges it; a legitimate label in its place takes it back.
// With SHARED_REPUTATION=on a project that shares reads another's label; one that opted out does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import type { LabelName } from '../../src/store/labels.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';

const CHALLENGE_REPORTED = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
rules:
  - name: reported_domain
    action: challenge
    warning: reported_by_feedback
    conditions: { fact: domain_reported_count, operator: greaterThanInclusive, value: 1 }
`;

/** Labels the decision `res` answered with through POST /v1/feedback (the project's private key). */
async function label(server: TestServer, project: CreatedProject, res: Reply, name: LabelName): Promise<void> {
  const answer = await post(server.url, '/v1/feedback', { decision_id: res.headers.get('x-decision-id'), label: name }, apiKey(project.keys.private_key));
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
}

describe.each(['sqlite', 'postgres'] as const)('reputation facts over HTTP on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  let strict: CreatedProject;
  const verify = (project: CreatedProject, email: string, ip = '198.51.100.7') =>
    post(server.url, '/v1/public/verify', { email_address: email, ipv4_address: ip, show_results: true }, bearer(project.keys.access_token));

  beforeAll(async () => {
    server = await startService({ database });
    shop = await server.createProject({ name: 'shop' });
    strict = await server.createProject({ name: 'strict', policyYaml: CHALLENGE_REPORTED });
  });
  afterAll(() => server?.close());

  it('a second sign-up from a labelled domain shows domain_reported_count 1', async () => {
    const first = await verify(shop, 'ringleader@fraud-ring.com');
    expect(first.status).toBe(200);
    expect(first.body.analyzed_data).toMatchObject({ email_reported: 'false', domain_reported_count: '0', ip_reported_count: '0' });
    expect(first.body.action).toBe('allow');
    await label(server, shop, first, 'fraud');

    const second = await verify(shop, 'accomplice@fraud-ring.com', '198.51.100.99');
    expect(second.status).toBe(200);
    expect(second.body.analyzed_data).toMatchObject({
      email_reported: 'false',
      domain_reported_count: '1',
      domain_legitimate_count: '0',
      ip_reported_count: '1', // the same /24
    });
    // The default policy only shows the check (action none); one label stays under the risk score's thresholds (domain 3, network 2).
    expect(second.body.risk_score_breakdown).toEqual({});
    expect(second.body.action).toBe('allow');

    // The labelled address itself, under a plus tag: reported_email alone is high, which the default policy blocks.
    const again = await verify(shop, 'Ringleader+2@fraud-ring.com');
    expect(again.body.analyzed_data).toMatchObject({ email_reported: 'true' });
    expect(again.body.risk_score_breakdown).toEqual({ reported_email: 60 });
    expect(again.body.action).toBe('block');

    // The project learns it was wrong: legitimate replaces fraud in the counts at once.
    await label(server, shop, first, 'legitimate');
    const after = await verify(shop, 'Ringleader@fraud-ring.com');
    expect(after.body.analyzed_data).toMatchObject({ email_reported: 'false', domain_reported_count: '0', domain_legitimate_count: '1' });
    expect(after.body.action).toBe('allow');
  });

  it("a policy rule on the fact challenges it; another project does not see the first's label", async () => {
    const res = await verify(strict, 'accomplice@fraud-ring.com');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.action).toBe('allow'); // the strict project has no label of its own
    const first = await verify(strict, 'someone@fraud-ring.com');
    await label(server, strict, first, 'chargeback');
    const next = await verify(strict, 'next@fraud-ring.com');
    expect(next.body.action).toBe('challenge');
  });
});

describe('shared reputation over HTTP (SHARED_REPUTATION=on)', () => {
  let server: TestServer;
  let a: CreatedProject;
  let b: CreatedProject;
  let alone: CreatedProject;
  const verify = (project: CreatedProject, email: string) =>
    post(server.url, '/v1/public/verify', { email_address: email, show_results: true }, bearer(project.keys.access_token));

  beforeAll(async () => {
    server = await startService({ env: { SHARED_REPUTATION: 'on' } });
    a = await server.createProject({ name: 'brand-a' });
    b = await server.createProject({ name: 'brand-b' });
    alone = await server.createProject({ name: 'brand-c' });
    await server.service.store.projects.update(alone.project.id, { sharesReputation: false });
  });
  afterAll(() => server?.close());

  it("counts a sharing project's label for the others that share, once for itself, and not for one that opted out", async () => {
    const first = await verify(a, 'mule@shared-ring.com');
    await label(server, a, first, 'abuse');
    expect((await verify(a, 'x@shared-ring.com')).body.analyzed_data).toMatchObject({ domain_reported_count: '1' });
    expect((await verify(b, 'x@shared-ring.com')).body.analyzed_data).toMatchObject({ domain_reported_count: '1' });
    expect((await verify(alone, 'x@shared-ring.com')).body.analyzed_data).toMatchObject({ domain_reported_count: '0' });
  });
});
