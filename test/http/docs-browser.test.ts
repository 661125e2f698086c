// /docs in a real browser (Debian's chromium driven by playwright-core, as test/http/browser.test.ts):
// Swagger UI renders the four operations from /v1/openapi.json, every request the page makes stays on
// the service's origin, and the page's Content-Security-Policy refuses nothing it needs.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type TestServer } from '../support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
let service: TestServer;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium), as .ci/run does`);
  service = await startService();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

it('renders the four operations from files and data of this origin only, with no CSP refusal, even opened', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const requested: string[] = [];
    const complaints: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) complaints.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') complaints.push(message.text());
    });
    page.on('pageerror', (error) => complaints.push(error.message));
    await page.goto(`${service.url}/docs`);
    await page.waitForSelector('.opblock-summary-path', { state: 'attached' });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((node) => node.getAttribute('data-path')));
    expect(paths).toEqual(expect.arrayContaining(['/v1/public/verify', '/v1/intelligence', '/v1/fingerprint', '/v1/public/ip']));
    expect(await page.textContent('.info .title')).toContain('email-trust');
    // Opened, an operation shows its example request and responses (highlighted JSON, schema models).
    await page.click('.opblock-summary-path[data-path="/v1/public/verify"]');
    await page.waitForSelector('.opblock-body .responses-table', { state: 'visible' });
    expect(await page.textContent('.opblock-body')).toContain('email_address');
    expect(requested.filter((url) => !url.startsWith(`${service.url}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${service.url}/v1/openapi.json`);
    expect(complaints).toEqual([]);
  } finally {
    await context.close();
  }
});
