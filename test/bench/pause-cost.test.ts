// bench/evaluate.ts --after-wait (recorded by `npm run bench` as pause_cost): one evaluation of the default
// policy after each pause, the pauses really taken.
import { describe, expect, it } from 'vitest';
import { measurePauseCost } from '../../bench/evaluate.js';

describe('what a pause costs (evaluate.js --after-wait)', () => {
  it('times one evaluation after each pause, in order, and sleeps the pauses it names', async () => {
    const rounds: number[][] = [];
    const ends: number[] = [];
    const costs = await measurePauseCost(4, 2, (us) => {
      rounds.push(us);
      ends.push(performance.now());
    });
    expect(costs.map((c) => c.pause)).toEqual(['back to back', 'after setImmediate', 'after 0.2 ms asleep', 'after 1 ms asleep', 'after 10 ms asleep']);
    for (const c of costs) {
      expect(Number.isFinite(c.us)).toBe(true);
      expect(c.us).toBeGreaterThan(0);
    }
    // Two rounds, each with a median per pause. The second round (after the warm-up) slept its pauses: 4 × (10
    // + 1 + 0.2) ms at least, where its 20 evaluations alone take a few ms.
    expect(rounds).toHaveLength(2);
    expect(rounds.every((r) => r.length === costs.length)).toBe(true);
    expect((ends[1] as number) - (ends[0] as number)).toBeGreaterThanOrEqual(4 * (10 + 1 + 0.2));
  }, 60_000);
});
