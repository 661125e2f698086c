// bench/thread-cpu.ts reads a process's threads from /proc: CPU spent on this test's own thread shows as
// the main thread's, per request.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuPerRequest, eventLoopShares, eventLoopTimes, threadTimes } from '../../bench/thread-cpu.js';

/** This thread's CPU so far in /proc's ticks (100 a second), user and system. */
function ownTicks(): number {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

describe.runIf(process.platform === 'linux')('thread CPU per request', () => {
  it("counts the event loop's CPU as main_us, divided by the requests", () => {
    const before = threadTimes(process.pid);
    expect(before?.has(process.pid)).toBe(true);
    // Spin until this thread (the process's main one: vitest's forks pool) has spent 200 ms of CPU by its own
    // /proc ticks. Not the process's CPU (process.cpuUsage): the process's other threads (the collector's,
    // the compiler's) once spent 150 ms of those 200 in a CI run, and the test thread only 50.
    const from = ownTicks();
    while (ownTicks() - from < 20) {
      // on a core
    }
    const spent = ((ownTicks() - from) * 1_000_000) / 100;
    const cpu = cpuPerRequest(process.pid, before, threadTimes(process.pid), 10);
    // Over 10 "requests": about 20,000 µs each; /proc counts in 10 ms ticks.
    expect(cpu?.main_us).toBeGreaterThanOrEqual(15_000);
    expect(cpu?.main_us).toBeLessThanOrEqual((spent + 20_000) / 10 + 5_000);
    expect(cpu?.other_threads_us).toBeGreaterThanOrEqual(0);
  });

  it("counts another thread's CPU among other_threads_us, and the busiest one alone", async () => {
    const before = threadTimes(process.pid);
    // A worker spins until its own thread has spent 200 ms of CPU (20 ticks of /proc/thread-self/stat, however
    // busy the machine) while this thread sleeps, then stays: an ended thread leaves /proc with its times.
    const spinner = new Worker(
      `const { parentPort } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      const ticks = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
      const from = ticks(); while (ticks() - from < 20) {}
      parentPort.postMessage('spun'); parentPort.on('message', () => {});`,
      { eval: true },
    );
    await new Promise((resolve) => spinner.once('message', resolve));
    const cpu = cpuPerRequest(process.pid, before, threadTimes(process.pid), 1);
    await spinner.terminate();
    expect(cpu?.busiest_other_thread_us).toBeGreaterThanOrEqual(200_000);
    expect(cpu?.other_threads_us).toBeGreaterThanOrEqual(cpu?.busiest_other_thread_us ?? Number.POSITIVE_INFINITY);
    expect(cpu?.main_us).toBeLessThan(cpu?.busiest_other_thread_us ?? 0);
  });

  it('gives nothing for a process that is not there, or without requests', () => {
    expect(threadTimes(2 ** 30)).toBeNull();
    expect(cpuPerRequest(process.pid, threadTimes(process.pid), threadTimes(process.pid), 0)).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')("where the event loop's time went", () => {
  it('counts a spinning thread as on a core and a sleeping one as asleep', async () => {
    const atStart = eventLoopTimes(process.pid);
    expect(atStart).not.toBeNull();
    const spinUntil = performance.now() + 150;
    while (performance.now() < spinUntil) {
      // on a core
    }
    const spun = eventLoopShares(atStart, eventLoopTimes(process.pid));
    const beforeSleep = eventLoopTimes(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const slept = eventLoopShares(beforeSleep, eventLoopTimes(process.pid));

    // Spinning: on a core or waiting for one (another test file may hold the other core), hardly asleep.
    expect((spun?.on_cpu_percent ?? 0) + (spun?.waiting_for_a_core_percent ?? 0)).toBeGreaterThan(80);
    expect(spun?.asleep_percent).toBeLessThan(20);
    expect(spun?.on_cpu_percent).toBeGreaterThan(20);
    // Sleeping on a timer: asleep most of the time, hardly on a core.
    expect(slept?.asleep_percent).toBeGreaterThan(70);
    expect(slept?.on_cpu_percent).toBeLessThan(30);
    for (const shares of [spun, slept]) {
      const sum = (shares?.on_cpu_percent ?? 0) + (shares?.waiting_for_a_core_percent ?? 0) + (shares?.asleep_percent ?? 0);
      expect(sum).toBeGreaterThan(99);
      expect(sum).toBeLessThan(101);
    }
  });

  it('counts the time a runnable thread waits for a core apart, in shares that add up to the whole', async () => {
    // One spinning thread per core besides this one: the cores are oversubscribed, so this thread waits for one.
    const spinners = Array.from(
      { length: availableParallelism() },
      () => new Worker('const until = Date.now() + 600; while (Date.now() < until) {}', { eval: true }),
    );
    const ended = Promise.all(spinners.map((w) => new Promise((resolve) => w.once('exit', resolve))));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the workers are spinning
    const before = eventLoopTimes(process.pid);
    const spinUntil = performance.now() + 300;
    while (performance.now() < spinUntil) {
      // runnable all the time: on a core or waiting for one
    }
    const shares = eventLoopShares(before, eventLoopTimes(process.pid));
    await ended;

    expect(shares?.waiting_for_a_core_percent).toBeGreaterThan(5);
    expect(shares?.asleep_percent).toBeLessThan(20);
    const sum = (shares?.on_cpu_percent ?? 0) + (shares?.waiting_for_a_core_percent ?? 0) + (shares?.asleep_percent ?? 0);
    expect(sum).toBeGreaterThan(99);
    expect(sum).toBeLessThan(101);
  });

  it('gives nothing for a process that is not there or an empty interval', () => {
    expect(eventLoopTimes(2 ** 30)).toBeNull();
    const now = eventLoopTimes(process.pid);
    expect(eventLoopShares(now, now)).toBeNull();
    expect(eventLoopShares(null, now)).toBeNull();
  });
});
