// POST /v1/fingerprint with the browser's device signals: they decide the device hash sealed into the
// token, which the event of an intelligence call stores (and velocity by device counts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { policiesDir } from '../../src/paths.js';
import { apiKey, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError } from './contract.js';

let server: TestServer;
let project: CreatedProject;
/** A project on strict-signup, whose device checks show the device's facts in analyzed_data. */
let strict: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'devices' });
  strict = await server.createProject({ name: 'strict-devices', policyYaml: readFileSync(join(policiesDir, 'strict-signup.yaml'), 'utf8') });
});
afterAll(() => server.close());

const HEADERS = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156', 'accept-language': 'en-GB,en;q=0.9' };
const SIGNALS = {
  browser_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  timezone: 'Europe/Paris',
  languages: ['en-GB', 'en'],
  platform: 'Linux x86_64',
  screen: '1920x1080x24',
  hardware_concurrency: 8,
  device_memory: 8,
  touch_points: 0,
};

let calls = 0;
/** The device stored with an intelligence call that carried a token issued for `body`. */
async function deviceOf(body: unknown, headers: Record<string, string> = HEADERS): Promise<string> {
  const issued = await post(server.url, '/v1/fingerprint', body, { ...apiKey(project.keys.public_key), ...headers });
  expect(issued.status).toBe(200);
  const email = `device${++calls}@example.com`;
  const res = await post(server.url, '/v1/intelligence', { email_address: email, fingerprint: issued.body.fingerprint }, apiKey(project.keys.private_key));
  expect(res.status).toBe(200);
  const [row] = await server.service.store.knex('events').where({ project_id: project.project.id, email }).select('device');
  return row.device as string;
}

describe('device signals', () => {
  it('tell two browsers with the same headers apart by their browser_id', async () => {
    const first = await deviceOf({ device: SIGNALS });
    const second = await deviceOf({ device: { ...SIGNALS, browser_id: 'ffffffffffffffffffffffffffffffff' } });
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(second).not.toBe(first);
  });

  it('give the same device for the same signals in any order, and another without them', async () => {
    const reversed = Object.fromEntries(Object.entries(SIGNALS).reverse());
    const device = await deviceOf({ device: SIGNALS });
    expect(await deviceOf({ device: reversed })).toBe(device);
    expect(await deviceOf({})).not.toBe(device);
    expect(await deviceOf({})).toBe(await deviceOf({ device: {} }));
  });

  it('change the device when any one of them changes', async () => {
    const device = await deviceOf({ device: SIGNALS });
    for (const changed of [{ timezone: 'Asia/Tokyo' }, { screen: '390x844x32' }, { hardware_concurrency: 4 }, { languages: ['fr-FR'] }]) {
      expect(await deviceOf({ device: { ...SIGNALS, ...changed } })).not.toBe(device);
    }
  });

  it.each([
    [{ device: { hardware_concurrency: 'eight' } }, /^device\.hardware_concurrency: /],
    [{ device: { hardware_concurrency: 4096 } }, /^device\.hardware_concurrency: /],
    [{ device: { screen: '1920 by 1080' } }, /^device\.screen: /],
    [{ device: { browser_id: 'short' } }, /^device\.browser_id: /],
    [{ device: { languages: Array.from({ length: 11 }, (_, i) => `l${i}`) } }, /^device\.languages: /],
    [{ device: { timezone: 'x'.repeat(65) } }, /^device\.timezone: /],
    [{ device: { canvas: 'abc' } }, /canvas/],
    [{ device: { webdriver: 'yes' } }, /^device\.webdriver: /],
    [{ device: 'a string' }, /^device: /],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const res = await post(server.url, '/v1/fingerprint', body, apiKey(project.keys.public_key));
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(message);
  });
});

/**
 * A British home address (AS20712, ip_country GB). The service sees the test's own connection (127.0.0.1,
 * not counted as where a token was obtained), so verify names the sign-up's IP: one per sign-up, apart
 * from the replay test's, or strict-signup's ip_duplication would block the third.
 */
const HOME_IP = '81.2.69.142';
const homeIp = (n: number) => `81.2.69.${n % 250}`;

let signups = 0;
/** A token issued for `body` with `headers`, then presented to verify (strict-signup) from `ip`: the answer. */
async function verifyWithToken(body: unknown, headers: Record<string, string> = HEADERS, ip = homeIp(signups + 1), token?: string) {
  let fingerprint = token;
  if (!fingerprint) {
    const issued = await post(server.url, '/v1/fingerprint', body, { ...apiKey(strict.keys.public_key), ...headers });
    expect(issued.status).toBe(200);
    fingerprint = issued.body.fingerprint as string;
  }
  const res = await post(
    server.url,
    '/v1/public/verify',
    { email_address: `signup${++signups}@example.com`, ipv4_address: ip, fingerprint, show_results: true },
    { authorization: `Bearer ${strict.keys.access_token}` },
  );
  expect(res.status).toBe(200);
  return { ...res.body, fingerprint } as Record<string, unknown> & { analyzed_data: Record<string, unknown>; fingerprint: string };
}

const LONDON = { ...SIGNALS, timezone: 'Europe/London' };

describe('device traits seen when the token is issued, as verify shows them (strict-signup)', () => {
  it("a consistent browser in its IP's country: no signal, allowed", async () => {
    const started = Date.now();
    const answer = await verifyWithToken({ device: LONDON });
    const secondsTaken = Math.ceil((Date.now() - started) / 1000);
    expect(answer.action).toBe('allow');
    expect(answer.analyzed_data).toMatchObject({
      device_risk_signals: [],
      device_timezone: 'Europe/London',
      device_ip_country_mismatch: 'false',
      device_is_automated: 'false',
      fingerprint_token_uses: '1',
      fingerprint_token_ips: '1', // issued to 127.0.0.1 (not a public address: not counted), presented from one
    });
    // Whole seconds since the token was issued, in this test's time: 0, or 1 when a second ended in between.
    expect(Number(answer.analyzed_data.fingerprint_age_seconds)).toBeGreaterThanOrEqual(0);
    expect(Number(answer.analyzed_data.fingerprint_age_seconds)).toBeLessThanOrEqual(secondsTaken);
  });

  it.each([
    ['navigator.webdriver', { device: { ...LONDON, webdriver: true } }, HEADERS],
    ['a HeadlessChrome User-Agent', { device: LONDON }, { ...HEADERS, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0 Safari/537.36' }],
    ['a Windows User-Agent on a Linux platform', { device: LONDON }, { ...HEADERS, 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/156' }],
  ])('%s is automation, blocked', async (_what, body, headers) => {
    const answer = await verifyWithToken(body, headers);
    expect(answer.analyzed_data.device_risk_signals).toContain('automation');
    expect(answer.analyzed_data.device_is_automated).toBe('true');
    expect(answer.errors).toContain('device_automation_detected');
    expect(answer.action).toBe('block');
  });

  it.each([
    ['no languages', { device: { ...LONDON, languages: [] } }, HEADERS],
    ['Accept-Language in another language than navigator.languages', { device: LONDON }, { ...HEADERS, 'accept-language': 'ru-RU,ru;q=0.9' }],
    ['a Tokyo time zone behind a British IP', { device: { ...SIGNALS, timezone: 'Asia/Tokyo' } }, HEADERS],
  ])('%s is an inconsistency, challenged', async (_what, body, headers) => {
    const answer = await verifyWithToken(body, headers);
    expect(answer.warnings).toContain('device_inconsistent');
    expect(answer.action).toBe('challenge');
  });

  it('an Android phone (Linux platform) and an iPad (a Mac User-Agent) are no mismatch', async () => {
    const android = await verifyWithToken(
      { device: { ...LONDON, platform: 'Linux armv81' } },
      { ...HEADERS, 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/156 Mobile' },
    );
    const ipad = await verifyWithToken(
      { device: { ...LONDON, platform: 'MacIntel' } },
      { ...HEADERS, 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari/605.1.15' },
    );
    expect([android.analyzed_data.device_risk_signals, ipad.analyzed_data.device_risk_signals]).toEqual([[], []]);
  });

  it('a token presented for a third address is replayed: blocked, its uses counted', async () => {
    const first = await verifyWithToken({ device: LONDON });
    await verifyWithToken(undefined, HEADERS, HOME_IP, first.fingerprint);
    const third = await verifyWithToken(undefined, HEADERS, HOME_IP, first.fingerprint);
    expect(third.analyzed_data).toMatchObject({ fingerprint_token_uses: '3', device_risk_signals: ['token_replay'] });
    expect(third.errors).toContain('fingerprint_replayed');
    expect(third.action).toBe('block');
    const rows = await server.service.store
      .knex('events')
      .whereIn('email', [`signup${signups - 2}@example.com`, `signup${signups}@example.com`])
      .select('fingerprint_token');
    expect(new Set(rows.map((r) => r.fingerprint_token)).size).toBe(1); // one id per token, never the token
    expect(rows[0].fingerprint_token).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('a verify without a fingerprint has no device facts at all', async () => {
    const res = await post(
      server.url,
      '/v1/public/verify',
      { email_address: 'nofp@example.com', ipv4_address: '81.2.69.251', show_results: true },
      { authorization: `Bearer ${strict.keys.access_token}` },
    );
    expect(Object.keys(res.body.analyzed_data).filter((k) => k.startsWith('device_') || k.startsWith('fingerprint_'))).toEqual([]);
    expect(res.body.warnings).toEqual([]);
  });
});
