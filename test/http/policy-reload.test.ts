// Hot reload of policies on the real service: POLICIES_DIR looked up first and the shipped policies second;
// a policy file changed (saved by rename, as editors do) while 8 clients verify (40 answers before the change, 40 sent after it): no
// request fails and every answer comes from the old or the new revision, the new one once it is loaded;
// an invalid edit keeps the previous revision, is logged with file:line:col and counted in /metrics, and
// fixing the file loads it; a project's stored policy re-read from the database on demand (what SIGHUP
// does), an invalid one keeping the previous revision. A project whose policy cannot be found stops the start.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { main } from '../../src/cli/main.js';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { policyRevision } from '../../src/policy/load.js';
import type { ReloadOutcome } from '../../src/policy/named-policies.js';
import { openDatabase } from '../../src/store/database.js';
import { bearer, post, send, startService, type TestServer } from '../support/server.js';
import { fixturePolicy } from './contract.js';

const SOFT = fixturePolicy('plus-soft'); // plus addressing: allow with a warning
const HARD = fixturePolicy('plus-hard'); // plus addressing: block
const INVALID = fixturePolicy('invalid-mode'); // line 6, column 23: a mode that does not exist
const revisionOf = policyRevision;
const WAIT_MS = 5_000;

let dir: string;
let server: TestServer;
let shop: CreatedProject;
const log: string[] = [];
const outcomes: ReloadOutcome[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-reload-'));
  await writeFile(join(dir, 'signup.yaml'), SOFT);
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  server = await startService({ env: { POLICIES_DIR: dir, ACCESS_LOG: 'off' }, compose: { log: createLogger({ logLevel: 'info' }, stream) } });
  server.service.policies.onReload((outcome) => {
    outcomes.push(outcome);
    tellWaiters(outcome);
  });
  shop = await createProjectWithKeys(server.service.store, { name: 'shop', policy: 'signup' });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Saves the file as editors do: written beside it, then renamed over it. */
async function save(text: string): Promise<void> {
  await writeFile(join(dir, '.signup.yaml.swp'), text);
  await rename(join(dir, '.signup.yaml.swp'), join(dir, 'signup.yaml'));
}

const waiters: { matches: (o: ReloadOutcome) => boolean; found: (o: ReloadOutcome) => void }[] = [];

/** Resolves with the first reload outcome (from now on) that matches; rejects after WAIT_MS. */
function nextOutcome(matches: (o: ReloadOutcome) => boolean): Promise<ReloadOutcome> {
  const from = outcomes.length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching policy reload within ${WAIT_MS} ms (saw ${JSON.stringify(outcomes.slice(from))})`)), WAIT_MS);
    const found = (o: ReloadOutcome) => {
      clearTimeout(timer);
      resolve(o);
    };
    waiters.push({ matches, found });
  });
}

function tellWaiters(outcome: ReloadOutcome): void {
  for (const [i, waiter] of waiters.entries()) {
    if (!waiter.matches(outcome)) continue;
    waiters.splice(i, 1);
    waiter.found(outcome);
    return;
  }
}

const verify = (token: string, email = 'jane+news@example.com') => post(server.url, '/v1/public/verify', { email_address: email }, bearer(token));
const readyPolicies = async () => (await send('GET', server.url, '/readyz')).body.policies;

async function reloadCount(source: string, result: string): Promise<number> {
  const text = (await send('GET', server.url, '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`email_trust_policy_reloads_total{source="${source}",result="${result}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('named policies in POLICIES_DIR', () => {
  it('serves a project on a shipped policy that POLICIES_DIR does not have (no 500), and reports where each comes from', async () => {
    const plain = await server.createProject({ name: 'plain' });
    const res = await verify(plain.keys.access_token);
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('allow');
    const policies = await readyPolicies();
    expect(policies.named.signup).toEqual({ revision: revisionOf(SOFT), from: 'POLICIES_DIR' });
    expect(policies.named.default).toMatchObject({ from: 'shipped' });
  });

  it('a change under load: no request fails, every answer comes from the old or the new revision, the new one once loaded', async () => {
    const [before, after] = [revisionOf(SOFT), revisionOf(HARD)];
    const answers: { email: string; status: number; action: string; afterReload: boolean }[] = [];
    let reloaded = false;
    let stop = false;
    const client = async (c: number) => {
      for (let i = 0; !stop; i += 1) {
        const email = `jane+c${c}n${i}@example.com`;
        const afterReload = reloaded;
        const res = await verify(shop.keys.access_token, email);
        answers.push({ email, status: res.status, action: res.body?.action, afterReload });
      }
    };
    const clients = Array.from({ length: 8 }, (_, c) => client(c));
    try {
      // Some answers by the old revision, the change, then some requests sent once the new one is loaded.
      await expect.poll(() => answers.length, { timeout: WAIT_MS }).toBeGreaterThanOrEqual(40);
      const loaded = nextOutcome((o) => o.policy === 'signup' && o.result === 'loaded');
      await save(HARD);
      expect(await loaded).toMatchObject({ source: 'file', previous: before, revision: after });
      reloaded = true;
      await expect.poll(() => answers.filter((a) => a.afterReload).length, { timeout: WAIT_MS }).toBeGreaterThanOrEqual(40);
    } finally {
      stop = true;
      await Promise.all(clients);
    }

    const rows: { email: string; policy_revision: string }[] = await server.service.store
      .knex('events')
      .where({ project_id: shop.project.id })
      .select('email', 'policy_revision');
    const revisionByEmail = new Map(rows.map((r) => [r.email, r.policy_revision]));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const decidedBy = answers.map((a) => `${a.action}@${revisionByEmail.get(a.email)}`);
    // allow is the soft revision's answer, block the hard one's: never a mix, never another revision.
    expect(new Set(decidedBy)).toEqual(new Set([`allow@${before}`, `block@${after}`]));
    expect(answers.filter((a) => a.afterReload).every((a) => a.action === 'block')).toBe(true);
    const counts = { old: decidedBy.filter((d) => d.endsWith(before)).length, new: decidedBy.filter((d) => d.endsWith(after)).length };
    console.info(`hot reload under load: ${answers.length} requests, ${counts.old} by the old revision, ${counts.new} by the new one, 0 failed`);
    expect(counts.old).toBeGreaterThan(0);
    expect(counts.new).toBeGreaterThan(0);
    expect((await readyPolicies()).named.signup.revision).toBe(after);
  });

  it('an invalid edit keeps the previous revision, logs file:line:col and is counted; fixing the file loads it', async () => {
    const failedBefore = await reloadCount('file', 'failed');
    const failed = nextOutcome((o) => o.policy === 'signup' && o.result === 'failed');
    await save(INVALID);
    expect(await failed).toMatchObject({ previous: revisionOf(HARD), revision: null });
    const logged = log.find((line) => line.includes('not reloaded'));
    expect(logged).toContain(`${join(dir, 'signup.yaml')}:6:23: /checks/local_plus/mode: must be one of: hard, soft`);
    expect(logged).toContain(`revision ${revisionOf(HARD)} stays in use`);
    expect(await reloadCount('file', 'failed')).toBe(failedBefore + 1);
    const kept = await verify(shop.keys.access_token);
    expect([kept.status, kept.body.action]).toEqual([200, 'block']);
    expect((await readyPolicies()).named.signup.revision).toBe(revisionOf(HARD));

    const fixed = nextOutcome((o) => o.policy === 'signup' && o.result === 'loaded');
    await save(SOFT);
    expect(await fixed).toMatchObject({ previous: revisionOf(HARD), revision: revisionOf(SOFT) });
    const res = await verify(shop.keys.access_token);
    expect([res.status, res.body.action]).toEqual([200, 'allow']);
  });
});

describe("a project's stored policy", () => {
  it('reloads from the database on demand (SIGHUP); an invalid one keeps the previous revision and answers 200', async () => {
    const project = await server.createProject({ name: 'stored', policyYaml: SOFT });
    expect((await verify(project.keys.access_token)).body.action).toBe('allow');
    const projects = () => server.service.store.knex('projects').where({ id: project.project.id });

    const failedBefore = await reloadCount('stored', 'failed');
    await projects().update({ policy_source: INVALID }); // only a direct write stores an invalid policy: the CLI refuses it
    await server.service.reloadPolicies();
    expect(outcomes.at(-1)).toMatchObject({ source: 'stored', project: 'stored', result: 'failed', previous: revisionOf(SOFT) });
    expect(await reloadCount('stored', 'failed')).toBe(failedBefore + 1);
    expect(log.find((line) => line.includes('project \\"stored\\"') && line.includes('stored:6:23'))).toBeDefined();
    const kept = await verify(project.keys.access_token);
    expect([kept.status, kept.body.action]).toEqual([200, 'allow']);

    await projects().update({ policy_source: HARD });
    await server.service.reloadPolicies();
    // At once: the reload forgets the cached key lookups that hold the project.
    expect((await verify(project.keys.access_token)).body.action).toBe('block');
    expect((await readyPolicies()).projects[project.project.id]).toEqual({ policy: 'stored', revision: revisionOf(HARD) });
  });

  it('is no longer reported by /readyz once the project moves to a named policy (project update --policy NAME, then SIGHUP)', async () => {
    const project = await server.createProject({ name: 'moving', policyYaml: HARD });
    expect((await verify(project.keys.access_token)).body.action).toBe('block');
    expect((await readyPolicies()).projects[project.project.id]).toEqual({ policy: 'moving', revision: revisionOf(HARD) });
    await server.service.store.projects.update(project.project.id, { policy: 'default', policySource: null });
    await server.service.reloadPolicies();
    const res = await verify(project.keys.access_token);
    expect([res.status, res.body.action]).toEqual([200, 'allow']); // the default policy's answer
    expect((await readyPolicies()).projects[project.project.id]).toBeUndefined();
  });
});

describe('start', () => {
  it("`serve` refuses to start when a project's policy is found nowhere: exit 2 naming the project, the policy and what to do", async () => {
    const database = `sqlite:${join(dir, 'lost.sqlite')}`;
    const store = await openDatabase(database);
    await store.migrate();
    await createProjectWithKeys(store, { name: 'lost', policy: 'gone' });
    await store.close();
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    const env = { DATABASE_URL: database, POLICIES_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', NETWORK_CHECKS: 'off' };
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      expect(await main(['serve'])).toBe(2);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      vi.restoreAllMocks();
    }
    expect(errors.join('\n')).toMatch(
      /^error: cannot start: project "lost" uses policy "gone", which is neither in POLICIES_DIR \(.*\) nor in the shipped policies \(known: .*default.*signup.*\); add gone\.yaml to POLICIES_DIR, or point the project at another policy: email-trust project update lost --policy NAME\|FILE$/,
    );
  });
});
