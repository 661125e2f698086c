// The playground's replay (POST /v1/playground/evaluate with `replay: true`): the text re-decides the sandbox
// project's stored verify events beside their labels, as `policy replay --labels` does; a production project's
// token is refused; nothing is stored; a text that does not compile answers its problems.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { PLAYGROUND_REPLAY_EVENTS, type PlaygroundReplay } from '../../src/service/playground-replay.js';
import { eventSubject, type LabelName } from '../../src/store/labels.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const LENIENT = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
`;

const STRICT = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: challenge }
`;

let server: TestServer;
let lab: CreatedProject;
let shop: CreatedProject;

const evaluate = (project: CreatedProject, body: unknown) => post(server.url, '/v1/playground/evaluate', body, bearer(project.keys.access_token));
const eventCount = async () => Number((await server.service.store.knex('events').count({ n: '*' }))[0]?.n);

beforeAll(async () => {
  server = await startService();
  lab = await server.createProject({ name: 'lab', sandbox: true, policyYaml: LENIENT });
  shop = await server.createProject({ name: 'shop', policyYaml: LENIENT });
  const { store } = server.service;
  for (const [email, label] of [
    ['bob@mailinator.com', 'fraud'],
    ['eve@mailinator.com', 'abuse'],
    ['info@example.com', 'legitimate'],
    ['jane@example.com', 'legitimate'],
    ['sam@example.com', null],
  ] as const) {
    const res = await post(server.url, '/v1/public/verify', { email_address: email }, bearer(lab.keys.access_token));
    expect(res.status).toBe(200);
    if (!label) continue;
    const event = await store.knex('events').first('id', 'base_email').where({ project_id: lab.project.id, email });
    await store.labels.record({
      projectId: lab.project.id,
      subject: eventSubject(Number(event.id)),
      eventId: Number(event.id),
      decisionId: null,
      email,
      baseEmail: event.base_email,
      domain: null,
      ipv4: null,
      ipv6: null,
      device: null,
      label: label as LabelName,
      note: null,
      source: 'api',
      labelledAt: Date.now(),
      shared: false,
    });
  }
});
afterAll(() => server?.close());

describe('the playground replay', () => {
  it('re-decides the sandbox project’s stored events with the text, beside their labels, storing nothing', async () => {
    const before = await eventCount();
    const res = await evaluate(lab, { policy: STRICT, replay: true });
    expect(res.status).toBe(200);
    const { replay } = res.body as { replay: PlaygroundReplay };
    expect(replay).toMatchObject({ events: 5, stored: 5, changed: 3, before: { allow: 5 }, after: { block: 2, challenge: 1, allow: 2 } });
    expect(replay.since).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(replay.labels).toMatchObject({
      labelled: 4,
      unlabelled: 1,
      current: { bad: { blocked: 0, challenged: 0, allowed: 2 }, good: { blocked: 0, challenged: 0, allowed: 2 }, precision: null, recall: 0 },
      candidate: { bad: { blocked: 2, challenged: 0, allowed: 0 }, good: { blocked: 0, challenged: 1, allowed: 1 }, precision: 0.6667, recall: 1 },
    });
    expect(await eventCount()).toBe(before);
  });

  it('gives the replay beside an address’s answer, and nothing of it unasked', async () => {
    const both = await evaluate(lab, { policy: STRICT, email_address: 'amy@mailinator.com', replay: true });
    expect(both.body).toMatchObject({ compiled: true, result: { action: 'block' }, replay: { events: 5 } });
    const plain = await evaluate(lab, { policy: STRICT });
    expect(plain.body).not.toHaveProperty('replay');
  });

  it('answers the problems of a text that does not compile, without replaying', async () => {
    const res = await evaluate(lab, { policy: 'version: "1.0"\nchecks:\n  nope: { mode: hard }\n', replay: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ compiled: false });
    expect(res.body).not.toHaveProperty('replay');
  });

  it('refuses a production project’s token (403) and a replay that is not a boolean (400)', async () => {
    expect((await evaluate(shop, { policy: STRICT, replay: true })).status).toBe(403);
    const bad = await evaluate(lab, { policy: STRICT, replay: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('replay');
  });

  it('stops at PLAYGROUND_REPLAY_EVENTS events, saying how many the window holds', async () => {
    const big = await server.createProject({ name: 'big', sandbox: true, policyYaml: LENIENT });
    const now = Date.now();
    await Promise.all(
      Array.from({ length: PLAYGROUND_REPLAY_EVENTS + 10 }, (_, i) =>
        server.service.store.events.record({
          projectId: big.project.id,
          endpoint: 'verify',
          email: `user${i}@example.com`,
          emailLower: `user${i}@example.com`,
          baseEmail: `user${i}@example.com`,
          action: 'allow',
          createdAt: now - 60_000 + i,
        }),
      ),
    );
    const { replay } = (await evaluate(big, { policy: STRICT, replay: true })).body as { replay: PlaygroundReplay };
    expect(replay).toMatchObject({ events: PLAYGROUND_REPLAY_EVENTS, stored: PLAYGROUND_REPLAY_EVENTS + 10, labels: { labelled: 0 } });
  });
});
