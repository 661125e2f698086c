// CPU time of a process's threads (Linux /proc/<pid>/task/<tid>/stat: user + system clock ticks), to tell
// how much CPU a request costs the service's event loop (its main thread, tid = pid) and its other threads
// (the store thread, the garbage collector's helpers). Requests per second move with everything else on the
// machine and with how busy the event loop is kept; CPU per request moves much less. Null off Linux.
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
}

/** CPU µs per request between two readings of `pid`'s threads, over `requests` requests. */
export function cpuPerRequest(pid: number, before: ThreadTimes | null, after: ThreadTimes | null, requests: number): CpuPerRequest | null {
  if (!before || !after || requests <= 0) return null;
  let main = 0;
  let others = 0;
  for (const [tid, time] of after) {
    const spent = time - (before.get(tid) ?? 0);
    if (tid === pid) main += spent;
    else others += spent;
  }
  return { main_us: Math.round(main / requests), other_threads_us: Math.round(others / requests) };
}
