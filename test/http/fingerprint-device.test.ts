// POST /v1/fingerprint with the browser's device signals: they decide the device hash sealed into the
// token, which the event of an intelligence call stores (and velocity by device counts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, post, startService, type TestServer } from '../support/server.js';
import { expectPlainError } from './contract.js';

let server: TestServer;
let project: CreatedProject;

beforeAll(async () => {
  server = await startService();
  project = await server.createProject({ name: 'devices' });
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
    [{ device: 'a string' }, /^device: /],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const res = await post(server.url, '/v1/fingerprint', body, apiKey(project.keys.public_key));
    expectPlainError(res, 400);
    expect(res.body.error).toMatch(message);
  });
});
