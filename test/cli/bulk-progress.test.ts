// The progress of `verify --file` as a person sees it on stderr: a bar redrawn in place on a terminal, a plain
// line every 5 seconds elsewhere. A clock of our own drives it; nothing here waits.
import { describe, expect, it } from 'vitest';
import { duration, fmt, Progress } from '../../src/cli/bulk/progress.js';

function screen(isTTY: boolean) {
  const written: string[] = [];
  const stream = { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

describe('progress on a terminal', () => {
  it('draws the share done, the count, the rate and the time left, in place', () => {
    let now = 0;
    const { stream, written } = screen(true);
    const progress = new Progress({ total: 1000, done: 0, stream, now: () => now });
    for (let i = 0; i < 250; i += 1) {
      now += 2; // 250 addresses in 0.5 s: 500 per second
      progress.tick();
    }
    const last = written.at(-1) ?? '';
    expect(last.startsWith('\r\u001b[K[######------------------] 25% 250/1,000 500/s ETA 2s')).toBe(true);
    expect(written.every((text) => !text.includes('\n'))).toBe(true);
    progress.end();
    expect(written.at(-1)).toBe('\r\u001b[K');
  });

  it('counts the rows of an earlier run in the share, not in the rate', () => {
    let now = 0;
    const { stream, written } = screen(true);
    const progress = new Progress({ total: 1000, done: 900, stream, now: () => now });
    for (let i = 0; i < 50; i += 1) {
      now += 10;
      progress.tick();
    }
    expect(written.at(-1)).toContain('95% 950/1,000 100/s ETA 1s');
  });
});

describe('progress elsewhere (a log, a CI job)', () => {
  it('writes a plain line every 5 seconds, not on every address', () => {
    let now = 0;
    const { stream, written } = screen(false);
    const progress = new Progress({ total: 100_000, done: 0, stream, now: () => now });
    for (let i = 0; i < 12_000; i += 1) {
      now += 1; // 1,000 per second for 12 s
      progress.tick();
    }
    expect(written).toEqual(['progress: 5,000/100,000 1,000/s ETA 1m35s\n', 'progress: 10,000/100,000 1,000/s ETA 1m30s\n']);
  });
});

describe('durations', () => {
  it.each([
    [0.4, '0s'],
    [59, '59s'],
    [61, '1m01s'],
    [3599, '59m59s'],
    [3720, '1h02m'],
  ])('%s s reads %s', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });
});

describe('counts', () => {
  it('are written with thousands separators, as en-US writes them', () => {
    expect([0, 999, 1_000, 12_345, 100_000, -1_234_567, 1_000_000_000_000_000].map(fmt)).toEqual([
      '0',
      '999',
      '1,000',
      '12,345',
      '100,000',
      '-1,234,567',
      '1,000,000,000,000,000',
    ]);
    expect([2.5, 1_234.5].map(fmt)).toEqual(['2.5', '1,234.5']);
  });
});
