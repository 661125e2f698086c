// How many requests evaluate at once on the event loop (issue 12). An evaluation is CPU work on the one
// thread, split only where it waits (the store thread's velocity read, DNS, RDAP): 32 requests interleaved
// at those waits cost about half as much again per request as the same requests a few at a time (every
// scavenge copies the live objects of all of them; they share the caches), and none is answered sooner.
// So at most `size` requests evaluate at once and the others wait their turn in arrival order. A request
// still evaluating after `holdMs` (waiting on a slow lookup) gives its slot up, so a slow lookup holds the
// requests behind it back by that long at most, never by its own timeout.

/** Requests evaluating at once (verify, intelligence): measured best between 8 and 16 on 2 cores under 32 connections. */
export const EVALUATION_SLOTS = 16;
/** A request gives its slot up after this long, done or not. */
export const EVALUATION_HOLD_MS = 5;

export class EvaluationSlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly size = EVALUATION_SLOTS,
    readonly holdMs = EVALUATION_HOLD_MS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`evaluation slots: ${size} is not a positive integer`);
  }

  /** Requests waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Requests holding a slot now. */
  get running(): number {
    return this.busy;
  }

  /** Runs `work` in a slot: at once when one is free, else when one is given up. Its result or error is the caller's. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy < this.size) this.busy += 1;
    else await new Promise<void>((take) => this.waiting.push(take));
    let held = true;
    const giveUp = () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      // The slot passes to the next in line as it is; with nobody waiting it is free.
      if (next) next();
      else this.busy -= 1;
    };
    const timer = setTimeout(giveUp, this.holdMs);
    try {
      return await work();
    } finally {
      clearTimeout(timer);
      giveUp();
    }
  }
}
