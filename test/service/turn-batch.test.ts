import { describe, expect, it } from 'vitest';
import { createTurnBatch } from '../../src/service/turn-batch.js';

describe('createTurnBatch', () => {
  it('releases the callers of one turn together at its end, after its microtasks and before the next turn', async () => {
    const turnEnd = createTurnBatch();
    const order: string[] = [];
    const first = turnEnd().then(() => order.push('first'));
    const second = turnEnd().then(() => order.push('second'));
    queueMicrotask(() => order.push('microtask'));
    // A 0 ms timer marks the next turn of the loop: what the order is checked against, not a wait.
    const nextTurn = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => order.push('timer'));
    await Promise.all([first, second, nextTurn]);
    expect(order).toEqual(['microtask', 'first', 'second', 'timer']);
  });

  it('holds a caller of a later turn until that turn ends, apart from the batch before', async () => {
    const turnEnd = createTurnBatch();
    await turnEnd();
    // Called as the first batch is released: it waits for the end of the turn that follows.
    const order: string[] = [];
    setImmediate(() => order.push('the next turn'));
    await turnEnd();
    order.push('late');
    expect(order).toEqual(['the next turn', 'late']);
  });

  it('gives each caller its own release: one that throws after it does not hold the others', async () => {
    const turnEnd = createTurnBatch();
    const outcomes = await Promise.allSettled([
      turnEnd().then(() => {
        throw new Error('this request failed');
      }),
      turnEnd().then(() => 'answered'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: 'answered' });
  });
});
