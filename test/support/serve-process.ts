// `email-trust serve` as a child process (bin/email-trust.js, built dist/), for tests of what only a real
// process shows: signals, kill -9, WORKERS, several instances. Every process a file started is killed after it.
//
//   const { startServe } = serveProcesses();                     // at the top of the test file
//   const running = await startServe({ DATABASE_URL: url });   // resolves once it logs "listening"
//   running.proc.kill('SIGKILL');
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

export const packageDir = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningServe {
  proc: ChildProcess;
  base: string;
  /** Everything it wrote on stderr so far. */
  stderr: () => string;
}

/** Builds dist/ when it is missing: `npm test` builds first (pretest); a bare `vitest run` on a fresh checkout may not have. */
export function ensureBuilt(): void {
  if (!existsSync(join(packageDir, 'dist/src/cli/main.js'))) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: packageDir, stdio: 'ignore' });
}

export interface ServeProcesses {
  spawnServe(env: Record<string, string>): ChildProcess;
  startServe(env: Record<string, string>, listening?: number): Promise<RunningServe>;
}

/**
 * spawnServe and startServe for one test file, with its hooks: the build made first if missing, and every
 * process still running SIGKILLed after the file. Called at a file's top level: test files share their worker's
 * modules (isolate: false), so hooks at this module's top level would belong to the first file that imported it.
 */
export function serveProcesses(): ServeProcesses {
  const children: ChildProcess[] = [];
  beforeAll(ensureBuilt);
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const spawnOne = (env: Record<string, string>) => {
    const proc = spawnServe(env);
    children.push(proc);
    return proc;
  };
  return { spawnServe: spawnOne, startServe: (env, listening = 1) => startServe(spawnOne(env), listening) };
}

/** Spawns `serve` with `env` over PORT=0, HOST=127.0.0.1, LOG_LEVEL=info and NETWORK_CHECKS=off; stderr is piped. */
function spawnServe(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: packageDir,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** `proc`, resolved once it has logged `listening` lines (one per process: workers and their primary). */
function startServe(proc: ChildProcess, listening: number): Promise<RunningServe> {
  let text = '';
  return new Promise((resolve, reject) => {
    proc.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const lines = text.split('\n').filter((line) => line.includes('"email-trust is listening"'));
      if (lines.length >= listening) {
        const base = (JSON.parse(lines.at(-1) as string) as { base: string }).base;
        resolve({ proc, base, stderr: () => text });
      }
    });
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) early:\n${text}`)));
  });
}

/** Resolves with the collected text once `done(text)` holds; rejects if the process exits first or after 60 s (vitest's bound). */
export function waitFor(stream: NodeJS.ReadableStream, proc: ChildProcess, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`serve did not print what was awaited within 60 s; output so far:\n${text}`)), 60_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (done(text)) {
        stream.off('data', onData);
        clearTimeout(timer);
        resolve(text);
      }
    };
    stream.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) early; output so far:\n${text}`)));
  });
}
