// The velocity read statements carry their row limit in their text: SQLite plans with a LIMIT's value, so
// a bound limit has it parse and plan the statement again on every run (measured: twice the cost of a read).
import { describe, expect, it } from 'vitest';
import { addressesStatement, countsStatement, limitClause, MAX_WINDOW_BUCKETS } from '../../src/store/velocity-counters.js';

describe('row limits of the read statements', () => {
  it.each([
    [0, 'limit 0'],
    [20, 'limit 20'],
    [MAX_WINDOW_BUCKETS + 1, `limit ${MAX_WINDOW_BUCKETS + 1}`],
  ])('writes %s as %s', (limit, text) => {
    expect(limitClause(limit)).toBe(text);
  });

  it.each([[-1], [2.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 60]])('refuses %s (never text that is not a whole number)', (limit) => {
    expect(() => limitClause(limit)).toThrow(RangeError);
  });

  it('binds only the subject and the bucket, never the limit', () => {
    const counts = countsStatement('prj', 'ipv4', '198.51.100.1', 29_000_000);
    expect(counts.bindings).toEqual(['prj', 'ipv4', '198.51.100.1', 29_000_000]);
    expect(counts.sql).toMatch(new RegExp(`limit ${MAX_WINDOW_BUCKETS + 1}$`));
    const addresses = addressesStatement('prj', 'ipv6', '2001:db8::1', 100);
    expect(addresses.bindings).toEqual(['prj', 'ipv6', '2001:db8::1']);
    expect(addresses.sql).toMatch(/limit 100$/);
    expect(`${counts.sql} ${addresses.sql}`.split('?')).toHaveLength(4 + 3 + 1);
  });
});
