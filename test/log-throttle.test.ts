// A line of one kind at most once a second, the next one carrying how many were not written; kinds apart;
// nothing counted at a level the logger drops. The clock is the test's.
import { describe, expect, it } from 'vitest';
import { LogThrottle, THROTTLE_INTERVAL_MS, throttled } from '../src/log-throttle.js';
import { captureLog } from './support/log-capture.js';

function setUp(level: 'warn' | 'error' = 'warn') {
  const captured = captureLog(level);
  let clock = 1_000;
  const throttle = new LogThrottle(captured.log, { now: () => clock });
  return {
    captured,
    throttle,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('LogThrottle', () => {
  it('writes the first line of a kind, counts the rest of its second, and gives the count on the next line', () => {
    const { captured, throttle, advance } = setUp();
    for (let i = 0; i < 1000; i += 1) throttle.write('warn', 'database unavailable', { n: i }, 'database unavailable');
    expect(captured.lines).toEqual([expect.objectContaining({ level: 40, n: 0, msg: 'database unavailable' })]);
    expect(captured.lines[0]).not.toHaveProperty('suppressed');

    advance(THROTTLE_INTERVAL_MS - 1);
    throttle.write('warn', 'database unavailable', { n: 1000 }, 'database unavailable');
    expect(captured.lines).toHaveLength(1);
    advance(1);
    throttle.write('warn', 'database unavailable', { n: 1001 }, 'database unavailable');
    expect(captured.lines).toHaveLength(2);
    expect(captured.lines[1]).toMatchObject({ n: 1001, suppressed: 1000 });

    // A quiet second, then a line: nothing was suppressed in between.
    advance(5 * THROTTLE_INTERVAL_MS);
    throttle.write('warn', 'database unavailable', { n: 1002 }, 'database unavailable');
    expect(captured.lines[2]).toMatchObject({ n: 1002 });
    expect(captured.lines[2]).not.toHaveProperty('suppressed');
  });

  it('keeps kinds apart, each with its own count, at the level each line asks for', () => {
    const { captured, throttle, advance } = setUp();
    for (let i = 0; i < 10; i += 1) {
      throttle.write('warn', 'a', {}, 'kind a');
      throttle.write('error', 'b', {}, 'kind b');
    }
    expect(captured.lines.map((line) => [line.level, line.msg])).toEqual([
      [40, 'kind a'],
      [50, 'kind b'],
    ]);
    advance(THROTTLE_INTERVAL_MS);
    throttle.write('error', 'b', {}, 'kind b');
    expect(captured.lines[2]).toMatchObject({ msg: 'kind b', suppressed: 9 });
  });

  it('at a level the logger drops, writes nothing and owes nothing', () => {
    const errorsOnly = setUp('error');
    for (let i = 0; i < 100; i += 1) errorsOnly.throttle.write('warn', 'a', {}, 'kind a');
    expect(errorsOnly.captured.lines).toEqual([]);

    const quiet = setUp('warn');
    for (let i = 0; i < 100; i += 1) quiet.throttle.write('info', 'a', {}, 'below warn');
    quiet.advance(THROTTLE_INTERVAL_MS);
    quiet.throttle.write('warn', 'a', {}, 'kind a');
    expect(quiet.captured.lines).toEqual([expect.objectContaining({ msg: 'kind a' })]);
    expect(quiet.captured.lines[0]).not.toHaveProperty('suppressed');
  });

  it('remembers a bounded number of kinds: past it, new kinds share one', () => {
    const { captured, throttle } = setUp();
    for (let i = 0; i < 1000; i += 1) throttle.write('warn', `kind ${i}`, {}, `kind ${i}`);
    // 256 kinds of their own, then one line for all the others in that second.
    expect(captured.lines).toHaveLength(257);
    expect(captured.lines.at(-1)?.msg).toBe('kind 256');
  });
});

describe('throttled', () => {
  it("is the logger's own throttle, shared by every caller of that logger", () => {
    const first = captureLog('warn');
    const second = captureLog('warn');
    expect(throttled(first.log)).toBe(throttled(first.log));
    expect(throttled(first.log)).not.toBe(throttled(second.log));
    throttled(first.log).write('warn', 'a', {}, 'one');
    throttled(first.log).write('warn', 'a', {}, 'two');
    throttled(second.log).write('warn', 'a', {}, 'three');
    expect(first.lines.map((line) => line.msg)).toEqual(['one']);
    expect(second.lines.map((line) => line.msg)).toEqual(['three']);
  });
});
