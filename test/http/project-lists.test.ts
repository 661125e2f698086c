// A project's own lists reach a running service: after `email-trust project lists add P known-abuse FILE`
// (another process) verify blocks the listed domain and its subdomains with domain_is_known_abuse within
// 5 s, another project is unaffected, and after `remove` the domain is allowed again; on both engines.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CreatedProject } from '../../src/cli/projects.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';

const savedDatabaseUrl = process.env.DATABASE_URL;
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => {
  if (savedDatabaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = savedDatabaseUrl;
});

describe.each(['sqlite', 'postgres'] as const)('project lists in a running service on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  let neighbour: CreatedProject;
  let dir: string;
  let listFile: string;

  beforeAll(async () => {
    server = await startService({ database });
    shop = await server.createProject({ name: 'shop' });
    neighbour = await server.createProject({ name: 'neighbour' });
    dir = await mkdtemp(join(tmpdir(), 'email-trust-lists-'));
    listFile = join(dir, 'abuse.txt');
    await writeFile(listFile, '# our own abuse sources\nabuse-source.net\nBÜCHER-abuse.de  # an IDN, stored as punycode\n');
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const verify = (project: CreatedProject, email: string) =>
    post(server.url, '/v1/public/verify', { email_address: email, show_results: true }, bearer(project.keys.access_token));
  const verdict = async (project: CreatedProject, email: string) =>
    (await post(server.url, '/v1/intelligence', { email_address: email }, apiKey(project.keys.private_key))).body.action;

  /** `email-trust project lists …` as another process would run it: its own store, so this service's caches are not told. */
  async function lists(...args: string[]): Promise<number> {
    process.env.DATABASE_URL = server.service.config.databaseUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      return await main(['project', 'lists', ...args]);
    } finally {
      log.mockRestore();
    }
  }

  const blocked = { action: 'block', errors: ['domain_is_known_abuse'], is_known_abuse_domain: true };
  const allowed = { action: 'allow', errors: [], is_known_abuse_domain: false };

  it('blocks a listed domain and its subdomains within 5 s of `project lists add`, for that project only', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(allowed); // the project is now cached with its key
    expect(await lists('add', 'shop', 'known-abuse', listFile)).toBe(0);

    vi.setSystemTime(start + 4_000);
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(allowed);
    vi.setSystemTime(start + 5_001);
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(blocked);
    expect((await verify(shop, 'jane@mail.abuse-source.net')).body).toMatchObject(blocked);
    expect((await verify(shop, 'jane@Bücher-abuse.de')).body).toMatchObject(blocked);
    expect((await verify(shop, 'jane@notabuse-source.net')).body).toMatchObject(allowed);
    expect(await verdict(shop, 'jane@abuse-source.net')).toBe('block');

    expect((await verify(neighbour, 'jane@abuse-source.net')).body).toMatchObject(allowed);
    expect(await verdict(neighbour, 'jane@abuse-source.net')).toBe('allow');
  });

  it('allows the domain again within 5 s of `project lists remove`; an exemption takes a subdomain out', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Past the moment the previous test left the clock at, so this test's first request looks its key up afresh.
    const start = Date.now() + 60_000;
    vi.setSystemTime(start);
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(blocked);
    expect(await lists('remove', 'shop', 'known-abuse', 'abuse-source.net')).toBe(0);
    expect(await lists('add', 'shop', 'known-abuse', 'other-abuse.net')).toBe(0);
    expect(await lists('add', 'shop', 'not-known-abuse', 'partner.other-abuse.net')).toBe(0);
    vi.setSystemTime(start + 4_000);
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(blocked);
    vi.setSystemTime(start + 5_001);
    expect((await verify(shop, 'jane@abuse-source.net')).body).toMatchObject(allowed);
    expect((await verify(shop, 'jane@mail.abuse-source.net')).body).toMatchObject(allowed);
    expect((await verify(shop, 'jane@bücher-abuse.de')).body).toMatchObject(blocked);
    expect((await verify(shop, 'jane@x.other-abuse.net')).body).toMatchObject(blocked);
    expect((await verify(shop, 'jane@x.partner.other-abuse.net')).body).toMatchObject(allowed);
  });

  it("applies a change made through this service's own store at once", async () => {
    await server.service.store.projectLists.add(neighbour.project.id, 'spam-trap', ['trap-domain.org']);
    expect((await verify(neighbour, 'a@trap-domain.org')).body).toMatchObject({ action: 'block', errors: ['domain_is_spam_trap'], is_spam_trap_domain: true });
    expect((await verify(shop, 'a@trap-domain.org')).body).toMatchObject({ action: 'allow', is_spam_trap_domain: false });
    await server.service.store.projectLists.clear(neighbour.project.id, null);
    expect((await verify(neighbour, 'a@trap-domain.org')).body).toMatchObject({ action: 'allow', is_spam_trap_domain: false });
  });
});
