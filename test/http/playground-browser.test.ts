import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { packageRoot } from '../../src/paths.js';
import { launchChromium, requireChromium } from '../support/chromium.js';
import { startService, type TestServer } from '../support/server.js';

const SCREENSHOTS = process.env.PLAYGROUND_SCREENSHOTS === '1';
const WAIT = { timeout: 5000 };

const STORED = `version: "1.0"
description: sign-up, the short version
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
`;

// Line 6 has a mode the schema does not know.
const BROKEN = `version: "1.0"
description: sign-up, the short version
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: always, action: block }
  role_based_address: { mode: soft, action: allow_with_review }
`;

const FIXED = BROKEN.replace('mode: always', 'mode: hard');

let browser: Browser;
let service: TestServer;
let lab: CreatedProject;
let shop: CreatedProject;

beforeAll(async () => {
  requireChromium();
  service = await startService();
  lab = await service.createProject({ name: 'lab', sandbox: true, policyYaml: STORED });
  shop = await service.createProject({ name: 'shop' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** Replaces the editor's whole text as typed text (one input event, as a paste). */
async function typePolicy(page: Page, text: string): Promise<void> {
  await page.click('#editor .ace_content');
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

const editorText = (page: Page) => page.evaluate<string>("ace.edit('editor').getValue()");

it('marks a compile error at its line, then shows the action and explain of an address once fixed', async () => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    const requested: string[] = [];
    const complaints: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') complaints.push(message.text());
    });
    page.on('pageerror', (error) => complaints.push(error.message));
    await page.goto(`${service.url}/playground#key=${lab.keys.access_token}`);
    await page.waitForSelector('#project:has-text("project lab")', WAIT);
    expect(await editorText(page)).toBe(STORED);
    // The key left the address bar; the page keeps it in this browser's storage.
    expect(page.url()).toBe(`${service.url}/playground`);

    await typePolicy(page, BROKEN);
    await page.waitForSelector('.ace_gutter-cell.ace_error', WAIT);
    expect(await page.$$eval('.ace_gutter-cell.ace_error', (cells) => cells.map((c) => c.textContent?.trim()))).toEqual(['6']);
    expect(await page.locator('.ace_marker-layer .problem-line').count()).toBe(1);
    const problems = await page.$$eval('#problems li', (items) => items.map((i) => i.textContent));
    expect(problems).toEqual([expect.stringMatching(/^line 6, column 30: \/checks\/disposable_domain\/mode: must be one of: hard, soft/)]);
    await page.fill('#email', 'jane@mailinator.com');
    if (SCREENSHOTS) await page.screenshot({ path: join(packageRoot, 'docs', 'playground-error.png') });

    await typePolicy(page, FIXED);
    await page.waitForSelector('#action', WAIT);
    expect(await page.textContent('#action')).toBe('block');
    expect(await page.locator('.ace_gutter-cell.ace_error').count()).toBe(0);
    expect(await page.locator('#problems li').count()).toBe(0);
    expect(await page.textContent('.why')).toMatch(/^block is the most severe action that fired, from disposable_domain/);
    const fired = await page.$$eval('#explain .entry.fired .name', (names) => names.map((n) => n.textContent));
    expect(fired).toEqual(['disposable_domain']);
    expect(await page.textContent('#explain')).toContain('is_disposable_domain equal true: saw true, held');

    // Another address, typed: the answer follows.
    await page.fill('#email', 'info@example.com');
    await page.waitForSelector('#action:text-is("allow_with_review")', WAIT);
    expect(await page.$$eval('#explain .entry.fired .name', (names) => names.map((n) => n.textContent))).toEqual(['role_based_address']);
    await page.fill('#email', 'jane@mailinator.com');
    await page.waitForSelector('#action:text-is("block")', WAIT);
    if (SCREENSHOTS) await page.screenshot({ path: join(packageRoot, 'docs', 'playground-result.png'), fullPage: true });

    expect(requested.filter((url) => !url.startsWith(`${service.url}/`))).toEqual([]);
    expect(complaints).toEqual([]);
  } finally {
    await context.close();
  }
});

it('shows which exemption applied and what it set aside', async () => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(`${service.url}/playground#key=${lab.keys.access_token}`);
    await page.waitForSelector('#project:has-text("project lab")', WAIT);
    await typePolicy(page, `${FIXED}exemptions:\n  - { name: team-mailboxes, when: { domains: [example.com] }, from: [role_based_address] }\n`);
    await page.fill('#email', 'info@example.com');
    await page.waitForSelector('#action:text-is("allow")', WAIT);
    expect(await page.textContent('#result dl')).toContain('team-mailboxes (set aside role_based_address)');
    expect(await page.$$eval('#explain .entry.fired .name', (names) => names.map((n) => n.textContent))).toEqual(['team-mailboxes', 'role_based_address']);
    expect(await page.textContent('#explain')).toContain('set aside by exemption team-mailboxes');
    // Another domain: no exemption, the check decides.
    await page.fill('#email', 'info@example.org');
    await page.waitForSelector('#action:text-is("allow_with_review")', WAIT);
  } finally {
    await context.close();
  }
});

it("refuses a production project's key with what to do", async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${service.url}/playground`);
    await page.fill('#key', shop.keys.access_token);
    await page.click('#load-key');
    await page.waitForSelector('#status:not([hidden])', WAIT);
    const message = await page.textContent('#status');
    expect(message).toContain('403');
    expect(message).toContain('not one: create one with `email-trust project create --name NAME --sandbox`');
    expect(await editorText(page)).toBe('');
  } finally {
    await context.close();
  }
});
