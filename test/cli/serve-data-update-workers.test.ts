// DATA_UPDATE_INTERVAL with WORKERS=2 (src/cli/cluster.ts): the primary runs `data update` from the local
// upstreams, once, and sends SIGHUP to each listening worker, so that a verify answered by either worker flags
// the new Tor exit without a restart.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { openDatabase } from '../../src/store/database.js';
import { type RunningServe, serveProcesses, waitFor } from '../support/serve-process.js';
import { NEW_TOR_EXIT, startUpstreams, type UpstreamServer } from '../support/upstream-server.js';

const { startServe } = serveProcesses();

let dir: string;
let upstreams: UpstreamServer;
let shop: CreatedProject;
let serve: RunningServe;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-update-workers-'));
  upstreams = await startUpstreams();
  const databaseUrl = `sqlite:${join(dir, 'workers.sqlite')}`;
  const store = await openDatabase(databaseUrl);
  try {
    await store.migrate();
    shop = await createProjectWithKeys(store, { name: 'shop', policy: 'default' });
  } finally {
    await store.close();
  }
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: join(dir, 'lists'), DATA_SOURCES_URL: upstreams.url, DATA_UPDATE_INTERVAL: '3600' };
  serve = await startServe({ ...env, WORKERS: '2', ACCESS_LOG: 'off', RATE_LIMIT_VERIFY: '0' }, 3);
});
afterAll(async () => {
  // SIGTERM to the primary, which stops its workers: killed harder, they would outlive the test.
  if (serve && serve.proc.exitCode === null) {
    const exited = once(serve.proc, 'exit');
    serve.proc.kill('SIGTERM');
    await exited;
  }
  await upstreams?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The warnings of a verify from the new Tor exit, on a connection of its own (so the workers take turns). */
async function warningsFromNewExit(): Promise<string[]> {
  const res = await fetch(`${serve.base}/v1/public/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.keys.access_token}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ email_address: 'jane.doe@example.com', ipv4_address: NEW_TOR_EXIT, show_results: true }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { warnings: string[] }).warnings;
}

const linesWith = (text: string, words: string) => text.split('\n').filter((line) => line.includes(words) && line.endsWith('}'));

it('the primary updates once and both workers reload: every verify flags the new Tor exit', async () => {
  const stderr = serve.proc.stderr as NodeJS.ReadableStream;
  // Each worker logs its reload of the installed lists; the primary its run's summary.
  const reloadedTor = (text: string) => linesWith(text, '"data lists reloaded"').filter((line) => line.includes('ip-intelligence/tor-exits.txt ')).length;
  if (reloadedTor(serve.stderr()) < 2) await waitFor(stderr, serve.proc, () => reloadedTor(serve.stderr()) >= 2);
  const all = serve.stderr();
  const summaries = linesWith(all, '"data update: ');
  expect(summaries).toHaveLength(1);
  expect(JSON.parse(summaries[0] as string)).toMatchObject({ installed: expect.arrayContaining(['ip-intelligence/tor-exits.txt']) });
  // One reload a worker (the primary holds no lists): two, each naming the Tor list.
  expect(linesWith(all, '"data lists reloaded"')).toHaveLength(2);
  expect(upstreams.asked.filter((path) => path === '/check.torproject.org/torbulkexitlist')).toHaveLength(1);
  // Four connections of their own: both workers answer, each with the new list.
  const answered = await Promise.all([1, 2, 3, 4].map(() => warningsFromNewExit()));
  for (const warnings of answered) expect(warnings).toContain('vpn_detected');
});
