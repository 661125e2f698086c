// bench/wake-cost.ts (recorded by `npm run bench` as wake_cost): the sender's µs per message to a thread asleep
// and to a thread busy, from the messages it really sent.
import { describe, expect, it } from 'vitest';
import { measureWakeCost } from '../../bench/wake-cost.js';

describe('what a message to another thread costs its sender (wake-cost.js)', () => {
  it('times each case and gives medians no larger than their 90th percentiles', async () => {
    const cost = await measureWakeCost(60);
    for (const us of [cost.asleep_us, cost.busy_us, cost.asleep_p90_us, cost.busy_p90_us]) {
      expect(Number.isFinite(us)).toBe(true);
      expect(us).toBeGreaterThan(0);
    }
    expect(cost.asleep_p90_us).toBeGreaterThanOrEqual(cost.asleep_us);
    expect(cost.busy_p90_us).toBeGreaterThanOrEqual(cost.busy_us);
  }, 30_000);
});
