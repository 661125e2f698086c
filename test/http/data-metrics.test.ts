// GET /metrics carries each data list's age (email_trust_data_age_seconds{list}) and, for a list with an
// upstream, its maximum age: read from the plugins' declarations at each scrape (issue 51).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { send, startService, type TestServer } from '../support/server.js';

let server: TestServer;
const NOW = Date.parse('2026-12-03T00:00:00Z');
beforeAll(async () => {
  server = await startService({ compose: { now: () => NOW } });
});
afterAll(() => server?.close());

/** The value of `name{list="<list>"}`, or undefined. */
function sample(text: string, name: string, list: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{list="${list}"} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

it("reports each list's age since its shipped date, and the maximum age of those with an upstream", async () => {
  const { text } = await send('GET', server.url, '/metrics');
  // Shipped 2026-08-22: 103 days before NOW.
  expect(sample(text, 'email_trust_data_age_seconds', 'ip-intelligence/tor-exits.txt')).toBe(103 * 86_400);
  expect(sample(text, 'email_trust_data_max_age_seconds', 'ip-intelligence/tor-exits.txt')).toBe(86_400);
  expect(sample(text, 'email_trust_data_max_age_seconds', 'disposable/domains.txt')).toBe(7 * 86_400);
  // No upstream: an age, no maximum.
  expect(sample(text, 'email_trust_data_age_seconds', 'disposable/never-disposable.txt')).toBe(9 * 86_400);
  expect(sample(text, 'email_trust_data_max_age_seconds', 'disposable/never-disposable.txt')).toBeUndefined();
});
