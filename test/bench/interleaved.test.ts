// bench/interleaved.ts: the endpoints' loads in short turns, the order rotating, and the ratios from every turn's
// requests and seconds; against a real node:http server whose second endpoint costs CPU on every request.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { interleave, interleavedFigures, turnOrder } from '../../bench/interleaved.js';

let server: Server | null = null;

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = null;
});

describe('interleaved loads', () => {
  it('rotates the order from turn to turn, so that every endpoint goes first as often', () => {
    expect([0, 1, 2, 3].map((turn) => turnOrder(['ip', 'verify', 'intelligence'], turn))).toEqual([
      ['ip', 'verify', 'intelligence'],
      ['verify', 'intelligence', 'ip'],
      ['intelligence', 'ip', 'verify'],
      ['ip', 'verify', 'intelligence'],
    ]);
  });

  it("gives each endpoint's requests over its seconds across the turns, and the ratios to the first endpoint's", () => {
    const figures = interleavedFigures(
      ['ip', 'verify'],
      [
        { endpoint: 'ip', turn: 0, requests: 1000, seconds: 1 },
        { endpoint: 'verify', turn: 0, requests: 300, seconds: 1 },
        // A slow turn: both endpoints answer half as many, and its ratio is the same.
        { endpoint: 'verify', turn: 1, requests: 150, seconds: 1 },
        { endpoint: 'ip', turn: 1, requests: 500, seconds: 1 },
        { endpoint: 'ip', turn: 2, requests: 1000, seconds: 0.5 },
        { endpoint: 'verify', turn: 2, requests: 200, seconds: 0.5 },
      ],
      1,
    );
    expect(figures).toEqual({
      turns: 3,
      slice_seconds: 1,
      endpoints: ['ip', 'verify'],
      requests_per_second: { ip: 1000, verify: 260 },
      ratio_to_baseline: { verify: 0.26 },
      ratio_each_turn: { verify: [0.3, 0.3, 0.2] },
    });
  });

  it('loads a real server in turns: the endpoint that burns CPU on every request gets the lower ratio', async () => {
    const paths: string[] = [];
    server = createServer((req, res) => {
      if (paths.at(-1) !== req.url) paths.push(req.url ?? '');
      if (req.url === '/slow') {
        const until = performance.now() + 2;
        while (performance.now() < until);
      }
      res.end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const figures = await interleave({ fast: { url: `${base}/fast` }, slow: { url: `${base}/slow` } }, { turns: 2, sliceSeconds: 0.3, connections: 2 });
    expect(figures.turns).toBe(2);
    // Turn 0 runs fast then slow, turn 1 slow then fast.
    expect(paths).toEqual(['/fast', '/slow', '/fast']);
    expect(figures.requests_per_second.slow).toBeGreaterThan(0);
    expect(figures.requests_per_second.slow).toBeLessThanOrEqual(500);
    expect(figures.ratio_to_baseline.slow).toBeLessThan(0.5);
    expect(figures.ratio_each_turn.slow).toHaveLength(2);
  });
});
