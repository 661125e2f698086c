// The node flags `serve` is started with (src/cli/serve-flags.ts): npm start and bin/email-trust.js's shebang
// give them (the container's ENTRYPOINT is checked in test/container.test.ts), node takes them, a service
// started as `npx email-trust serve` starts it (the file run directly) has them, and a service started without
// them says so in its log, naming them.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingServeFlags, SERVE_NODE_FLAGS } from '../../src/cli/serve-flags.js';
import { packageRoot } from '../../src/paths.js';
import { ensureBuilt } from '../support/serve-process.js';

let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'email-trust-serve-flags-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('SERVE_NODE_FLAGS', () => {
  it('are what `npm start` starts the service with', () => {
    const scripts = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toMatch(new RegExp(`(^|&& )node ${SERVE_NODE_FLAGS.join(' ')} bin/email-trust\\.js serve$`));
  });

  it("are what bin/email-trust.js's shebang starts node with (npx and a shell run the file itself)", () => {
    const shebang = readFileSync(join(packageRoot, 'bin/email-trust.js'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${SERVE_NODE_FLAGS.join(' ')}`);
  });

  it('are taken by this node: V8 runs fewer background threads with them', () => {
    const threads = (flags: readonly string[]) =>
      Number(
        execFileSync(process.execPath, [...flags, '-e', 'console.log(require("node:fs").readdirSync("/proc/self/task").length)'], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH }, // no NODE_OPTIONS of the caller's
        }),
      );
    const without = threads([]);
    const withFlags = threads(SERVE_NODE_FLAGS);
    // node's default pool is four threads; --v8-pool-size=1 leaves one.
    expect(without - withFlags).toBe(3);
  });
});

describe('missingServeFlags', () => {
  it('names every flag when node was started with none of them', () => {
    expect(missingServeFlags([], '')).toEqual([...SERVE_NODE_FLAGS]);
    expect(missingServeFlags(['--enable-source-maps'], '--max-old-space-size=512')).toEqual([...SERVE_NODE_FLAGS]);
  });

  it('finds them on the command line or in NODE_OPTIONS', () => {
    expect(missingServeFlags([...SERVE_NODE_FLAGS], '')).toEqual([]);
    expect(missingServeFlags([], ` ${SERVE_NODE_FLAGS.join('  ')} `)).toEqual([]);
  });

  it('takes a flag given with another value as given: the operator chose it', () => {
    expect(missingServeFlags(['--v8-pool-size=2'], '')).toEqual([]);
  });
});

/** bin/email-trust.js run as a program, the way npx and a shell run it: through its shebang. */
const DIRECTLY = 'directly';

/**
 * `serve` on a fresh database with these node flags (or run DIRECTLY) until it has printed its curl line (and, with
 * WORKERS, each of `workers` has logged that it listens), then SIGTERM at once (it must stop cleanly, exit 0): its
 * stderr, whole.
 */
async function serveLog(flags: readonly string[] | typeof DIRECTLY, name: string, env: Record<string, string> = {}, workers = 0): Promise<string> {
  const [command, args] = flags === DIRECTLY ? ['bin/email-trust.js', ['serve']] : [process.execPath, [...flags, 'bin/email-trust.js', 'serve']];
  const proc = spawn(command, args, {
    cwd: packageRoot,
    env: {
      // The shebang's `env` finds node on PATH: this node.
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NETWORK_CHECKS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  // Ready: the curl line printed and, with WORKERS, each worker's "listening" line logged.
  const workersListening = () => stderr.split('\n').filter((line) => line.includes('email-trust is listening') && line.includes('"worker":')).length;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/curl .*\n/.test(stdout) && workersListening() >= workers) resolve();
    };
    proc.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      check();
    });
    proc.stderr?.on('data', check);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) before it was ready:\n${stderr}`)));
  });
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
  return stderr;
}

describe('serve', () => {
  it('started without the flags, says which are missing and where to read about them', async () => {
    const lines = (await serveLog([], 'without'))
      .split('\n')
      .filter((line) => line.includes('missing_node_flags'))
      .map((line) => JSON.parse(line) as { msg: string; missing_node_flags: string[]; level: number });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.missing_node_flags).toEqual([...SERVE_NODE_FLAGS]);
    expect(lines[0]?.msg).toContain(`node was started without ${SERVE_NODE_FLAGS.join(' ')}`);
    expect(lines[0]?.msg).toContain('npm start');
  });

  it('with WORKERS=2, stops cleanly on a SIGTERM sent as soon as the curl line shows', async () => {
    // Before the primary printed it last, the signal's default action ended it in 3 of 5 tries here.
    expect(await serveLog(SERVE_NODE_FLAGS, 'workers-at-once', { WORKERS: '2' })).toContain('email-trust is listening');
  });

  it('with WORKERS=2 and without the flags, says so once (the first worker)', async () => {
    const log = await serveLog([], 'workers-without', { WORKERS: '2' }, 2);
    expect(
      log.split('\n').filter((line) => line.includes('missing_node_flags')),
      log,
    ).toHaveLength(1);
  });

  it('with WORKERS=2 started with the flags, its workers have them too (node:cluster passes them on)', async () => {
    const log = await serveLog(SERVE_NODE_FLAGS, 'workers-with', { WORKERS: '2' }, 2);
    expect(log).not.toContain('missing_node_flags');
    // Each worker's listening line (and the primary's) says whether the network checks run.
    const listening = log.split('\n').filter((line) => line.includes('email-trust is listening'));
    expect(listening.length).toBeGreaterThanOrEqual(2);
    for (const line of listening) expect((JSON.parse(line) as { network: unknown }).network).toEqual({ checks: 'off' });
  });

  it('started as `npx email-trust serve` starts it (bin/email-trust.js run directly), says nothing of them', async () => {
    const log = await serveLog(DIRECTLY, 'directly');
    expect(log).toContain('email-trust is listening');
    expect(log).not.toContain('missing_node_flags');
  });

  it('started as `npm start` starts it, says nothing of them', async () => {
    const log = await serveLog(SERVE_NODE_FLAGS, 'with');
    expect(log).toContain('email-trust is listening');
    expect(log).not.toContain('missing_node_flags');
  });
});
