// Bulk verification (issue 14): `email-trust verify --file` on a list of BENCH_BULK_ROWS addresses (default
// 100,000) with network checks off, the built CLI in a child process as a user runs it, the default policy,
// CSV in and out. Prints the wall time, the rate and the summary; --write merges them into
// bench/results.json (`bulk`). Target: 100,000 addresses in under a minute on this machine.
//
//   npx tsc -p tsconfig.json && node dist/bench/bulk.js [--write]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 100_000);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** A list shaped like a real one: mostly distinct people on a few hundred domains, some typos and throwaways. */
function list(rows: number): string {
  const domains = ['gmail.com', 'outlook.com', 'yahoo.com', 'example.com', 'mailinator.com', 'gmial.com', 'acme.co', 'corp.example.org'];
  for (let i = 0; i < 300; i += 1) domains.push(`company${i}.com`);
  const lines = ['id,name,email'];
  for (let i = 0; i < rows; i += 1) {
    const domain = domains[(i * 7919) % domains.length] as string;
    const local = i % 50 === 0 ? 'support' : i % 13 === 0 ? `first.last+${i}` : `user${i}`;
    lines.push(`${i},"Person ${i}, Jr.",${local}@${domain}`);
  }
  return `${lines.join('\n')}\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'et-bench-bulk-'));
try {
  const input = join(dir, 'list.csv');
  writeFileSync(input, list(ROWS));
  const out = join(dir, 'result.csv');
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [join(root, 'bin/email-trust.js'), 'verify', '--file', input, '--out', out], {
    env: { ...process.env, NETWORK_CHECKS: 'off', LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`verify --file exited ${run.status}`);
  const written = readFileSync(out, 'utf8').split('\n').length - 2;
  const figures = {
    rows: ROWS,
    rows_written: written,
    seconds: Number(seconds.toFixed(2)),
    per_second: Math.round(ROWS / seconds),
    measured: new Date().toISOString().slice(0, 10),
  };
  process.stdout.write(run.stdout);
  console.log(JSON.stringify(figures));
  if (process.argv.includes('--write')) {
    const file = join(root, 'bench/results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    results.bulk = figures;
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
