// Several instances as operators run them, as real `bin/email-trust.js serve` processes:
// - two services on one PostgreSQL and one Redis: 40 verifies with one token, fired at once and spread over
//   both, admit at most RATE_LIMIT_VERIFY (10) together (one window edge allowed), the rest 429 with
//   Retry-After; velocity written through one is seen by the other;
// - WORKERS=2 without Redis: two worker processes on one port, and a limit stays global (the cluster
//   primary counts for both); SIGTERM stops them all.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithKeys } from '../../src/cli/projects.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/store/database.js';
import { createPostgresSchema } from '../support/databases.js';
import { type RunningServe, serveProcesses } from '../support/serve-process.js';

const { spawnServe, startServe } = serveProcesses();

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 10;

async function stop(running: RunningServe): Promise<number | null> {
  if (running.proc.exitCode !== null) return running.proc.exitCode;
  const exited = new Promise<number | null>((resolve) => running.proc.once('exit', (code) => resolve(code)));
  running.proc.kill('SIGTERM');
  return exited;
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies field by field
  body: any;
}

/** One POST on a connection of its own (so the cluster spreads the requests over its workers). */
function postOnce(base: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

it.each([
  { WORKERS: undefined, workers: 1 },
  { WORKERS: '3', workers: 3 },
  { WORKERS: 'auto', workers: availableParallelism() },
])('WORKERS=$WORKERS runs $workers process(es)', ({ WORKERS, workers }) => {
  expect(loadConfig(WORKERS === undefined ? {} : { WORKERS }).workers).toBe(workers);
});

it.each(['0', 'many', '-1', '257'])('refuses WORKERS=%s, naming it', (WORKERS) => {
  expect(() => loadConfig({ WORKERS })).toThrow(/^WORKERS: /);
});

describe('two serve processes on one PostgreSQL and one Redis', () => {
  let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
  const running: RunningServe[] = [];
  let token = '';
  let velocityToken = '';

  beforeAll(async () => {
    schema = await createPostgresSchema();
    const env = { DATABASE_URL: schema.url, REDIS_URL, REDIS_PREFIX: `email-trust-test:${randomUUID()}:`, RATE_LIMIT_VERIFY: String(LIMIT) };
    // One after the other: the first brings the schema up to date.
    running.push(await startServe(env));
    running.push(await startServe(env));
    const store = await openDatabase(schema.url);
    try {
      token = (await createProjectWithKeys(store, { name: 'shop', policy: 'default' })).keys.access_token;
      // A token of its own, so the burst above leaves its rate limit untouched.
      velocityToken = (await createProjectWithKeys(store, { name: 'velocity', policy: 'default' })).keys.access_token;
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(async () => {
    for (const r of running) await stop(r);
    await schema?.drop();
  });

  it(`admit at most ${LIMIT} of 40 verifies of one token together; the rest 429 with Retry-After`, async () => {
    const [a, b] = running as [RunningServe, RunningServe];
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        postOnce(n % 2 === 0 ? a.base : b.base, '/v1/public/verify', { email_address: `user${n}@example.com` }, { authorization: `Bearer ${token}` }),
      ),
    );
    const admitted = answers.filter((x) => x.status === 200).length;
    const refused = answers.filter((x) => x.status === 429);
    console.info(`two instances, RATE_LIMIT_VERIFY=${LIMIT}: ${admitted} of 40 admitted, ${refused.length} refused with 429`);
    expect(admitted).toBeGreaterThanOrEqual(LIMIT);
    // One window edge: a burst that straddles two one-second windows may have both windows' points.
    expect(admitted).toBeLessThanOrEqual(2 * LIMIT);
    expect(admitted + refused.length).toBe(40);
    for (const r of refused) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(r.body).toEqual({ code: 429, error: expect.stringMatching(/rate limit exceeded/), id: expect.any(String), status: false });
    }
  });

  it('see each other’s velocity: addresses validated through one count in the other’s answer', async () => {
    const [a, b] = running as [RunningServe, RunningServe];
    const ask = (base: string, email: string) =>
      postOnce(
        base,
        '/v1/public/verify',
        { email_address: email, ipv4_address: '198.51.100.77', show_results: true },
        { authorization: `Bearer ${velocityToken}` },
      );
    for (const email of ['one@example.com', 'two@example.com', 'three@example.com']) expect((await ask(a.base, email)).status).toBe(200);
    const seen = await ask(b.base, 'four@example.com');
    expect(seen.status).toBe(200);
    expect(seen.body.analyzed_data.total_email_in_ip).toBe('4');
    expect(seen.body.warnings).toContain('multiple_accounts_detected');
  });
});

describe('WORKERS=2 without Redis', () => {
  let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
  let running: RunningServe;
  beforeAll(async () => {
    schema = await createPostgresSchema();
    running = await startServe({ DATABASE_URL: schema.url, WORKERS: '2', TRUST_PROXY: '1', RATE_LIMIT_FAILED_AUTH: '6' }, 3);
  }, 60_000);
  afterAll(async () => {
    if (running) await stop(running);
    await schema?.drop();
  });

  it('runs two worker processes on one port whose limit stays global, and stops them all on SIGTERM', async () => {
    const pids = new Set(
      running
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"email-trust is listening"') && line.includes('"policies"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    expect(pids.size).toBe(2);
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) {
      const token = `etv_at_${String(n).padStart(43, 'C')}`;
      statuses.push(
        (
          await postOnce(
            running.base,
            '/v1/public/verify',
            { email_address: 'a@example.com' },
            { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.90' },
          )
        ).status,
      );
    }
    // Ten connections, spread over both workers: six failures in all, then 429 from either.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429, 429]);
    expect(await stop(running)).toBe(0);
  });
});

it('WORKERS=2 on a port already taken: exits 2 naming the address, workers and all', async () => {
  const holder = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => holder.once('listening', resolve));
  const { port } = holder.address() as AddressInfo;
  try {
    const proc = spawnServe({ PORT: String(port), LOG_LEVEL: 'silent', WORKERS: '2', DATABASE_URL: 'sqlite::memory:' });
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => proc.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(2);
    expect(stderr).toContain(`PORT: 127.0.0.1:${port} is already in use`);
  } finally {
    holder.close();
  }
}, 30_000);
