// `email-trust key rotate|list` (main(argv) in this process) against a running service on the same SQLite
// file: the old key keeps working through the grace period and is then refused with the usual 401; `key list`
// shows labels and the last use, which the service writes at most once a minute per key, off the request path.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

let server: TestServer;
let project: CreatedProject;
let offset = 0;
const clock = () => Date.now() + offset;
const saved = process.env.DATABASE_URL;

beforeAll(async () => {
  server = await startService({ compose: { now: clock } });
  process.env.DATABASE_URL = server.service.config.databaseUrl;
  project = await server.createProject({ name: 'rotating' });
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
  await server.close();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0),
  ];
  try {
    return { code: await main(args), out: out.join(''), err: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

const verify = (token: string) => post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(token));

/** Waits (at most 5 s) until the service has written a last use of `keyId` at or after `since`. */
async function lastUseStored(keyId: string, since: number): Promise<number> {
  const lastUse = async () => (await server.service.store.keys.list(project.project.id)).find((k) => k.id === keyId)?.lastUsedAt ?? 0;
  await expect.poll(lastUse, { timeout: 5_000 }).toBeGreaterThanOrEqual(since);
  return lastUse();
}

describe('key rotate', () => {
  it('prints the new key once; the old one works through the grace, then answers 401', async () => {
    const r = await run('key', 'rotate', '--project', 'rotating', '--kind', 'access_token', '--grace', '1h', '--label', 'checkout', '--json');
    expect(r.code, r.err).toBe(0);
    const rotated = JSON.parse(r.out);
    expect(rotated).toMatchObject({ kind: 'access_token', label: 'checkout', status: 'live', token: expect.stringMatching(/^etv_at_/) });
    expect(rotated.retiring).toEqual([expect.objectContaining({ hint: project.keys.access_token.slice(0, 12), status: 'revoking' })]);
    const end = Date.parse(rotated.retiring[0].revoked_at);
    expect(end - Date.now()).toBeGreaterThan(3_590_000);

    expect((await verify(project.keys.access_token)).status).toBe(200);
    expect((await verify(rotated.token)).status).toBe(200);
    offset = end - Date.now() + 1;
    const refused = await verify(project.keys.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid credentials: the access token is unknown or revoked');
    expect((await verify(rotated.token)).status).toBe(200);
    offset = 0;
  });

  it('refuses a grace that is not a duration or is over 90 days, a bad label and an unknown project', async () => {
    for (const grace of ['7', '1w', '91d', '-1d']) {
      const r = await run('key', 'rotate', '--project', 'rotating', '--kind', 'public_key', '--grace', grace);
      expect(r.code, grace).toBe(2);
      expect(r.err).toMatch(/--grace/);
    }
    for (const label of ['', 'x'.repeat(65), 'tab\there']) {
      const r = await run('key', 'create', '--project', 'rotating', '--kind', 'public_key', '--label', label);
      expect(r.code, JSON.stringify(label)).toBe(2);
      expect(r.err).toMatch(/--label.*1 to 64 characters without control characters/);
    }
    const nobody = await run('key', 'rotate', '--project', 'nobody', '--kind', 'public_key');
    expect(nobody.code).toBe(2);
    expect(nobody.err).toMatch(/no project named or with id "nobody"/);
  });

  it('with --grace 0 the old key is refused at once, and the text says so', async () => {
    const r = await run('key', 'rotate', '--project', 'rotating', '--kind', 'private_key', '--grace', '0');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^created private_key key_\S+ \(shown once, keep it\):\n {2}etv_sk_\S+\nkey_\S+ \(etv_sk_.{5}…\) is refused from now on/);
  });
});

describe('key list', () => {
  it('shows labels and the last use, written once a minute per key, not once per request', async () => {
    const created = await run('key', 'create', '--project', 'rotating', '--kind', 'access_token', '--label', 'mobile app', '--json');
    const key = JSON.parse(created.out) as { id: string; token: string };
    const updates: string[] = [];
    server.service.store.knex.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (/^update .api_keys. set .last_used_at./i.test(q.sql) && q.bindings?.includes(key.id)) updates.push(q.sql);
    });

    const first = clock();
    for (let i = 0; i < 5; i += 1) expect((await verify(key.token)).status).toBe(200);
    const stored = await lastUseStored(key.id, first);
    offset = 30_000; // within the minute: no new write
    for (let i = 0; i < 5; i += 1) expect((await verify(key.token)).status).toBe(200);
    offset = 61_000;
    const later = clock();
    expect((await verify(key.token)).status).toBe(200);
    expect(await lastUseStored(key.id, later)).toBeGreaterThan(stored);
    expect(updates).toHaveLength(2);
    offset = 0;

    const text = await run('key', 'list', '--project', 'rotating');
    expect(text.out).toMatch(new RegExp(`${key.id} +access_token +etv_at_.{5}… +"mobile app" +created \\S+ +last used \\d{4}-\\d\\d-\\d\\dT`));
    expect(text.out).toMatch(/ +"checkout" +created \S+ +last used \S+\n/);
    expect(text.out).toMatch(/never used +REVOKED \S+/);
    const json = JSON.parse((await run('key', 'list', '--project', 'rotating', '--json')).out) as Array<Record<string, unknown>>;
    expect(json.find((k) => k.id === key.id)).toEqual({
      id: key.id,
      project_id: project.project.id,
      kind: 'access_token',
      hint: key.token.slice(0, 12),
      label: 'mobile app',
      status: 'live',
      created_at: expect.any(String),
      last_used_at: new Date(await lastUseStored(key.id, later)).toISOString(),
      revoked_at: null,
    });
  });
});
