// The CLI run in process: main(args) with console.* and direct writes to stdout and stderr captured
// (commander writes help and errors itself), for tests that assert what a user sees and the exit code.
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(...args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.map(String).join(' ')}\n`)),
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0),
  ];
  try {
    const code = await main(args);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
