// Velocity retention: events older than the retention period (with the velocity counters they added
// to: store/velocity-counters.ts), and expired domain facts, are deleted in the background, in bounded
// batches, so the history behind velocity never grows without end.
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';

const DAY_MS = 86_400_000;
const BATCH_ROWS = 1_000;

export interface Retention {
  /** One pass: what was deleted. */
  runOnce(): Promise<{ events: number; domainFacts: number }>;
  stop(): void;
}

export function startRetention(
  store: Pick<Store, 'events' | 'domainFacts'>,
  options: { retentionDays: number; intervalMs: number; now: () => number; log: Logger },
): Retention {
  const pass = async () => {
    const now = options.now();
    const events = await store.events.pruneOlderThan(now - options.retentionDays * DAY_MS, BATCH_ROWS);
    const domainFacts = await store.domainFacts.pruneExpired(now);
    if (events > 0 || domainFacts > 0)
      options.log.info({ events, domainFacts, retentionDays: options.retentionDays }, 'retention: deleted old events and expired domain facts');
    return { events, domainFacts };
  };
  // Passes never overlap: each one starts after the previous has finished.
  let last: Promise<unknown> = Promise.resolve();
  const runOnce = () => {
    const next = last.then(pass);
    last = next.catch(() => undefined);
    return next;
  };
  let pending = false;
  const tick = () => {
    if (pending) return; // the previous timer's pass is still deleting
    pending = true;
    runOnce()
      .catch((error: unknown) => options.log.error({ err: error }, 'retention pass failed; the next one will try again'))
      .finally(() => (pending = false));
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  setImmediate(tick); // a first pass at start, so a service restarted often still prunes
  return { runOnce, stop: () => clearInterval(timer) };
}
