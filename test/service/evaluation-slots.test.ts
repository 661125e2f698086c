// At most `size` requests evaluate at once; the others start in arrival order as slots free, and a request
// that holds its slot past holdMs (a slow lookup) gives it up to the next one.
import { describe, expect, it } from 'vitest';
import { EvaluationSlots } from '../../src/service/evaluation-slots.js';

/** A piece of work that runs until finish() is called, logging its start. */
function pending(log: string[], name: string) {
  let finish: (value: string) => void = () => {};
  const done = new Promise<string>((resolve) => {
    finish = resolve;
  });
  return {
    work: () => {
      log.push(name);
      return done;
    },
    finish: () => finish(name),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('evaluation slots', () => {
  it('run at most `size` at once and the rest in arrival order, each with its own result', async () => {
    const slots = new EvaluationSlots(2, 60_000);
    const log: string[] = [];
    const works = ['a', 'b', 'c', 'd'].map((name) => pending(log, name));
    const results = works.map((w) => slots.run(w.work));
    await turn();
    expect(log).toEqual(['a', 'b']);
    expect([slots.running, slots.queued]).toEqual([2, 2]);
    works[1]?.finish();
    await turn();
    expect(log).toEqual(['a', 'b', 'c']);
    works[0]?.finish();
    await turn();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    works[2]?.finish();
    works[3]?.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect([slots.running, slots.queued]).toEqual([0, 0]);
  });

  it('give a slot up after holdMs, so a slow one does not hold the next back', async () => {
    const slots = new EvaluationSlots(1, 20);
    const log: string[] = [];
    const slow = pending(log, 'slow');
    const next = pending(log, 'next');
    const results = [slots.run(slow.work), slots.run(next.work)];
    await turn();
    expect(log).toEqual(['slow']);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(log).toEqual(['slow', 'next']);
    next.finish();
    expect(await results[1]).toBe('next');
    // The slow one, finishing last, frees no second slot.
    slow.finish();
    expect(await results[0]).toBe('slow');
    expect([slots.running, slots.queued]).toEqual([0, 0]);
  });

  it('free the slot of a request that fails, and give the caller its error', async () => {
    const slots = new EvaluationSlots(1, 60_000);
    await expect(slots.run(() => Promise.reject(new Error('plugin broke')))).rejects.toThrow('plugin broke');
    expect(await slots.run(async () => 'after')).toBe('after');
    expect(slots.running).toBe(0);
  });

  it('refuse a size that is not a positive integer', () => {
    expect(() => new EvaluationSlots(0)).toThrow(RangeError);
    expect(() => new EvaluationSlots(1.5)).toThrow('evaluation slots: 1.5 is not a positive integer');
  });
});
