// The playground page's Replay button, driven in Chromium: the text in the editor re-decides the sandbox
// project's stored events, shown as the from → to matrix and the confusion table against their labels.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { eventSubject } from '../../src/store/labels.js';
import { launchChromium, requireChromium } from '../support/chromium.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const WAIT = { timeout: 5000 };

const LENIENT = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
`;

const STRICT = `${LENIENT}  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: challenge }
`;

let browser: Browser;
let service: TestServer;
let lab: CreatedProject;

beforeAll(async () => {
  requireChromium();
  service = await startService();
  lab = await service.createProject({ name: 'lab', sandbox: true, policyYaml: LENIENT });
  const { store } = service.service;
  for (const [email, label] of [
    ['bob@mailinator.com', 'fraud'],
    ['info@example.com', 'legitimate'],
    ['jane@example.com', 'legitimate'],
  ] as const) {
    expect((await post(service.url, '/v1/public/verify', { email_address: email }, bearer(lab.keys.access_token))).status).toBe(200);
    const event = await store.knex('events').first('id', 'base_email').where({ email });
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
      label,
      note: null,
      source: 'api',
      labelledAt: Date.now(),
      shared: false,
    });
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

it('replays the stored events with the text in the editor and shows the table against the labels', async () => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    const complaints: string[] = [];
    page.on('pageerror', (error) => complaints.push(error.message));
    await page.goto(`${service.url}/playground#key=${lab.keys.access_token}`);
    await page.waitForSelector('#project:has-text("project lab")', WAIT);
    await page.click('#editor .ace_content');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(STRICT);
    await page.click('#replay-button');
    await page.waitForSelector('#replay-labels', WAIT);
    expect(await page.textContent('.replay-summary')).toMatch(/^3 events since \S+ replayed by revision [0-9a-f]+: 2 would change action\.$/);
    const rows = await page.$$eval('#replay-labels tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual([
      ['labelled', 'action', 'current (stored)', 'this text'],
      ['labelled bad', 'blocked', '0', '1'],
      ['labelled bad', 'challenged', '0', '0'],
      ['labelled bad', 'allowed', '1', '0'],
      ['labelled good', 'blocked (false positive)', '0', '0'],
      ['labelled good', 'challenged (false positive)', '0', '1'],
      ['labelled good', 'allowed', '2', '1'],
      ['precision', 'block or challenge', 'n/a', '0.500'],
      ['recall', 'block or challenge', '0.000', '1.000'],
    ]);
    const matrix = await page.$$eval('#replay-matrix tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(matrix).toContainEqual(['allow', 'block', '1', 'b***@mailinator.com']);
    expect(complaints).toEqual([]);
  } finally {
    await context.close();
  }
});
