// The helpers every list plugin uses: data lists, and andThen for a run() that answers at once when it can.
import { describe, expect, it } from 'vitest';
import { andThen, parseList } from '../../plugins/plugin-data.js';

describe('plugin data lists', () => {
  it('parses one lower-case name per line, skipping comments and blank lines', () => {
    expect([...parseList('# header\n\nspam.example\n  Other.Example  \n# note\nspam.example\n')]).toEqual(['spam.example', 'other.example']);
  });
});

describe('andThen', () => {
  it('applies `then` at once to a value at hand: the answer is a value, not a promise', () => {
    expect(andThen(new Set(['a.example']), (set) => set.has('a.example'))).toBe(true);
    expect(andThen(null, (value) => value === null)).toBe(true);
  });

  it('waits for a promise, or for any thenable, and never takes one for a value', async () => {
    const fromPromise = andThen(Promise.resolve(2), (n) => n * 3);
    expect(fromPromise).toBeInstanceOf(Promise);
    expect(await fromPromise).toBe(6);
    // A thenable that is not a native promise (another realm's, a test double's).
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is no native promise is the point of the test
    const thenable: PromiseLike<number> = { then: (resolve) => Promise.resolve(5).then(resolve) };
    expect(await andThen(thenable, (n) => n + 1)).toBe(6);
  });
});
