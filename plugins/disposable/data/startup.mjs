// Start-up time and resident memory of `email-trust serve` of a checkout (built dist/), every list loaded:
// spawn to the "email-trust is listening" log line on an empty SQLite file, then VmRSS; three runs each.
//
//   node plugins/disposable/data/startup.mjs --root . [--runs 3]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { root: { type: 'string', default: '.' }, runs: { type: 'string', default: '3' } } });
const root = resolve(args.root);

/** One start: milliseconds to listening and VmRSS in MB right then. */
async function once() {
  const dir = mkdtempSync(join(tmpdir(), 'email-trust-startup-'));
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin/email-trust.js'), 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'info', NETWORK_CHECKS: 'off' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error('the service did not start within 20 s')), 20_000);
      child.once('exit', (code) => fail(new Error(`the service exited with code ${code} before listening`)));
      createInterface({ input: child.stderr }).on('line', (line) => {
        if (line.includes('"email-trust is listening"')) {
          clearTimeout(timer);
          done();
        }
      });
    });
    const ms = Math.round(performance.now() - spawnedAt);
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
    return { ms, rssMb: Math.round(kb / 1024) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < Number(args.runs); i++) results.push(await once());
console.log(`${root}: start ${results.map((r) => r.ms).join(' / ')} ms, RSS at start ${results.map((r) => r.rssMb).join(' / ')} MB`);
