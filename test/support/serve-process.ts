// `email-trust serve` as a child process (bin/email-trust.js, built dist/), for tests of what only a real
// process shows: signals, kill -9, WORKERS, several instances. Every process started is killed after the file.
//
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

const children: ChildProcess[] = [];

beforeAll(() => {
  // `npm test` builds first (pretest); a bare `vitest run` on a fresh checkout may not have.
  if (!existsSync(join(packageDir, 'dist/src/cli/main.js'))) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: packageDir, stdio: 'ignore' });
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Spawns `serve` with `env` over PORT=0, HOST=127.0.0.1, LOG_LEVEL=info and NETWORK_CHECKS=off; stderr is piped. */
export function spawnServe(env: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, ['bin/email-trust.js', 'serve'], {
    cwd: packageDir,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NETWORK_CHECKS: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(proc);
  return proc;
}

/** spawnServe, resolved once it has logged `listening` lines (one per process: workers and their primary). */
export function startServe(env: Record<string, string>, listening = 1): Promise<RunningServe> {
  const proc = spawnServe(env);
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
