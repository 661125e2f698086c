// CPU time of a process's threads (Linux /proc/<pid>/task/<tid>/stat: user + system clock ticks), to tell
// how much CPU a request costs the service's event loop (its main thread, tid = pid) and its other threads
// (libuv's pool, V8's helpers). Requests per second move with everything else on the
// machine and with how busy the event loop is kept; CPU per request moves much less. Null off Linux.
//
// And where the event loop's wall time went (/proc/<pid>/task/<pid>/schedstat: time on a core and time
// runnable but waiting for one, in ns): on a core, waiting for a core, or asleep (waiting for work: the
// rest). Under ip's load the event loop is on a core nearly all the time; under verify's it sleeps while
// every request waits for its commit, and what a wake-up costs depends on the host (pause_cost).
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

export type ThreadTimes = ReadonlyMap<number, number>;

/** Each thread's CPU time so far, in µs; null where /proc cannot tell. */
export function threadTimes(pid: number): ThreadTimes | null {
  try {
    const times = new Map<number, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      // Fields after the command name "(…)": state is the 1st, utime the 12th, stime the 13th.
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      times.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND);
    }
    return times;
  } catch {
    return null;
  }
}

export interface CpuPerRequest {
  /** The event loop's thread. */
  main_us: number;
  /** Every other thread of the process, together. */
  other_threads_us: number;
  /** The busiest of them: under verify's and intelligence's loads, a thread of libuv's pool or V8's (the store's statements run on the event loop). */
  busiest_other_thread_us: number;
}

/** CPU µs per request between two readings of `pid`'s threads, over `requests` requests. */
export function cpuPerRequest(pid: number, before: ThreadTimes | null, after: ThreadTimes | null, requests: number): CpuPerRequest | null {
  if (!before || !after || requests <= 0) return null;
  let main = 0;
  let others = 0;
  let busiest = 0;
  for (const [tid, time] of after) {
    const spent = time - (before.get(tid) ?? 0);
    if (tid === pid) main += spent;
    else {
      others += spent;
      busiest = Math.max(busiest, spent);
    }
  }
  return { main_us: Math.round(main / requests), other_threads_us: Math.round(others / requests), busiest_other_thread_us: Math.round(busiest / requests) };
}

/** The event loop thread's time on a core and runnable waiting for one, in ns so far; null where /proc cannot tell. */
export interface LoopTimes {
  onCpuNs: number;
  waitingNs: number;
  /** performance.now() when read. */
  atMs: number;
}

export function eventLoopTimes(pid: number): LoopTimes | null {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    if (!Number.isFinite(onCpu) || !Number.isFinite(waiting)) return null;
    return { onCpuNs: onCpu as number, waitingNs: waiting as number, atMs: performance.now() };
  } catch {
    return null;
  }
}

/** Shares of the wall time between two readings, in % (one decimal): on a core, runnable waiting for one, asleep. */
export interface LoopShares {
  on_cpu_percent: number;
  waiting_for_a_core_percent: number;
  asleep_percent: number;
}

export function eventLoopShares(before: LoopTimes | null, after: LoopTimes | null): LoopShares | null {
  if (!before || !after) return null;
  const wallNs = (after.atMs - before.atMs) * 1_000_000;
  if (wallNs <= 0) return null;
  const share = (ns: number) => Math.round((Math.min(Math.max(ns, 0), wallNs) / wallNs) * 1000) / 10;
  const onCpu = share(after.onCpuNs - before.onCpuNs);
  const waiting = share(after.waitingNs - before.waitingNs);
  return { on_cpu_percent: onCpu, waiting_for_a_core_percent: waiting, asleep_percent: Math.max(0, Math.round((100 - onCpu - waiting) * 10) / 10) };
}
