import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, requireChromium } from '../support/chromium.js';
import { startService, type TestServer } from '../support/server.js';

let browser: Browser;
let service: TestServer;

beforeAll(async () => {
  requireChromium();
  service = await startService();
  browser = await launchChromium();
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
