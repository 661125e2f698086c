import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { rowsFromWire, rowsToWire, velocityFromWire, velocityToWire } from '../../src/store/thread-wire.js';

/** Through a real message port, as the store thread's answers travel. */
function posted<T>(value: T): T {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(value);
    return receiveMessageOnPort(port2)?.message as T;
  } finally {
    port1.close();
  }
}

describe("the store thread's answers on their way to the event loop", () => {
  it('a velocity arrives as it left: its list in order, its counts', () => {
    const velocity = {
      emails: [
        { email: 'b@x.io', at: 1_800_000_000_002 },
        { email: 'ä@x.io', at: 1_800_000_000_001 },
      ],
      distinctEmails: 7,
      total: 12,
      since: [1, 3, 12],
    };
    const wire = posted(velocityToWire(velocity));
    expect(wire.addresses).toEqual(['b@x.io', 'ä@x.io']); // plain arrays, not objects, cross the port
    expect(velocityFromWire(wire)).toEqual(velocity);
    // A read that set its own address apart: the answer for it crosses too.
    const own = { ...velocity, own: { seen: true, others: 40, othersSince: [0, 2, 39] } };
    expect(velocityFromWire(posted(velocityToWire(own)))).toEqual(own);
    expect(velocityFromWire(posted(velocityToWire({ emails: [], distinctEmails: 0, total: 0, since: [] })))).toEqual({
      emails: [],
      distinctEmails: 0,
      total: 0,
      since: [],
    });
  });

  it("a statement's rows arrive as they left, nulls and numbers included; no rows, no rows", () => {
    const rows = [
      { id: 2, ipv4: '192.0.2.1', ipv6: null, created_at: 1_800_000_000_000 },
      { id: 1, ipv4: null, ipv6: '2001:db8::1', created_at: 1_799_999_999_999 },
    ];
    const wire = posted(rowsToWire(rows));
    expect(wire.columns).toEqual(['id', 'ipv4', 'ipv6', 'created_at']);
    expect(rowsFromWire(wire)).toEqual(rows);
    expect(rowsFromWire(posted(rowsToWire([])))).toEqual([]);
  });
});
