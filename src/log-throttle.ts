// Lines that a failure repeats (an outage: every request, every pool connection attempt) written at most
// once per kind a second: the first line of a kind goes out, the others of that second are counted, and
// the next one that goes out carries the count (`suppressed: 1234`). In a PostgreSQL outage under load a
// line per failure was thousands of lines a second (issue 46: 38,097 in 8 s).
//
//   throttled(log).write('warn', `database unavailable: ${reason}`, { reason }, 'database unavailable');
import type { Level, Logger } from 'pino';

/** How often a line of one kind may be written. */
export const THROTTLE_INTERVAL_MS = 1000;

/** Kinds remembered per logger; past it new kinds share one (a kind is chosen by code, this is a guard). */
const MAX_KINDS = 256;
const OTHER_KIND = 'other';

interface KindState {
  writtenAt: number;
  suppressed: number;
}

export interface ThrottleOptions {
  intervalMs?: number;
  /** A monotonic clock in ms (tests give their own). */
  now?: () => number;
}

export class LogThrottle {
  private readonly kinds = new Map<string, KindState>();
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly log: Logger,
    options: ThrottleOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? THROTTLE_INTERVAL_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** Writes the line unless one of `kind` was written less than the interval ago; then counts it instead. */
  write(level: Level, kind: string, fields: Record<string, unknown>, message: string): void {
    // A level the logger drops is not counted either: nothing is owed to a line nobody reads.
    if (!this.log.isLevelEnabled(level)) return;
    const at = this.now();
    const key = this.kinds.has(kind) || this.kinds.size < MAX_KINDS ? kind : OTHER_KIND;
    const state = this.kinds.get(key);
    if (state && at - state.writtenAt < this.intervalMs) {
      state.suppressed += 1;
      return;
    }
    const suppressed = state?.suppressed ?? 0;
    this.kinds.set(key, { writtenAt: at, suppressed: 0 });
    this.log[level](suppressed > 0 ? { ...fields, suppressed } : fields, message);
  }
}

const throttles = new WeakMap<Logger, LogThrottle>();

/** The logger's own throttle, shared by every module that writes through that logger. */
export function throttled(log: Logger): LogThrottle {
  let throttle = throttles.get(log);
  if (!throttle) {
    throttle = new LogThrottle(log);
    throttles.set(log, throttle);
  }
  return throttle;
}
