// bench/thread-cpu.ts reads a process's threads from /proc: CPU spent on this test's own thread shows as
// the main thread's, per request.
import { describe, expect, it } from 'vitest';
import { cpuPerRequest, threadTimes } from '../../bench/thread-cpu.js';

describe.runIf(process.platform === 'linux')('thread CPU per request', () => {
  it("counts the event loop's CPU as main_us, divided by the requests", () => {
    const before = threadTimes(process.pid);
    expect(before?.has(process.pid)).toBe(true);
    // Spin until the process has spent 200 ms of CPU (this thread's, nearly all: the others are idle).
    const started = process.cpuUsage();
    let spent = 0;
    while (spent < 200_000) {
      const used = process.cpuUsage(started);
      spent = used.user + used.system;
    }
    const cpu = cpuPerRequest(process.pid, before, threadTimes(process.pid), 10);
    // Over 10 "requests": about 20,000 µs each; /proc counts in 10 ms ticks.
    expect(cpu?.main_us).toBeGreaterThanOrEqual(15_000);
    expect(cpu?.main_us).toBeLessThanOrEqual((spent + 20_000) / 10 + 5_000);
    expect(cpu?.other_threads_us).toBeGreaterThanOrEqual(0);
  });

  it('gives nothing for a process that is not there, or without requests', () => {
    expect(threadTimes(2 ** 30)).toBeNull();
    expect(cpuPerRequest(process.pid, threadTimes(process.pid), threadTimes(process.pid), 0)).toBeNull();
  });
});
