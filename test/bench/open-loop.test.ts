// bench/open-loop.ts against a real node:http server: with `openWith`, every connection is opened before the
// clock starts (none during the load, so no request waits for a connection the server has not accepted yet)
// and the connections are used in turn; without it they open on demand.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readAnswer } from '../../bench/http-connections.js';
import { openLoop } from '../../bench/open-loop.js';

/**
 * The slow requests' time in the tests that tell a slow second apart. Its figure is then at least about this; a
 * figure that took in the slow requests would be too. The other figure's bound leaves room for a machine busy with
 * the rest of the suite (a request of the fast second took 42 ms once, against a bound of 40 with 80 ms slow ones).
 */
const SLOW_MS = 150;
const FAST_BELOW_MS = 100;

interface Seen {
  /** Connections in the order the server accepted them. */
  connections: Socket[];
  /** Per connection: the paths asked on it, in order. */
  paths: Map<Socket, string[]>;
}

let server: Server | null = null;

afterEach(async () => {
  server?.closeAllConnections();
  server?.close();
  server = null;
});

/** Answers /open at once and anything else after `delayMs`, so several requests are in flight at a time. */
async function start(delayMs: number): Promise<{ base: string; seen: Seen }> {
  const seen: Seen = { connections: [], paths: new Map() };
  server = createServer((req, res) => {
    seen.paths.get(req.socket)?.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      if (req.url === '/open') res.end('{}');
      else setTimeout(() => res.end('{"action":"allow"}'), delayMs);
    });
  });
  server.on('connection', (socket: Socket) => {
    seen.connections.push(socket);
    seen.paths.set(socket, []);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, seen };
}

describe('open-loop driver', () => {
  it('opens every connection before the clock starts and sends the load over all of them in turn', async () => {
    const { base, seen } = await start(20);
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: (n) => `{"n":${n}}`, rate: 200, seconds: 1, connections: 8, openWith: '/open' });

    expect(figures).toMatchObject({ sent: 200, non_2xx: 0, errors: 0, connections_opened: 8 });
    // Eight connections in all, each opened by its /open request: the load opened none.
    expect(seen.connections).toHaveLength(8);
    const perConnection = seen.connections.map((socket) => seen.paths.get(socket) ?? []);
    for (const paths of perConnection) expect(paths[0]).toBe('/open');
    expect(perConnection.flat().filter((path) => path === '/work')).toHaveLength(200);
    // In turn (FIFO): about 4 requests are in flight at a time, yet every connection carries a share of
    // the 200; most recently freed first (LIFO) would leave some of them idle.
    for (const paths of perConnection) expect(paths.filter((path) => path === '/work').length).toBeGreaterThanOrEqual(10);
  });

  it('without openWith opens connections on demand, only as many as the requests in flight need', async () => {
    const { base, seen } = await start(20);
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: () => '{}', rate: 200, seconds: 1, connections: 64 });

    expect(figures).toMatchObject({ sent: 200, non_2xx: 0, errors: 0, connections_opened: 0 });
    expect(seen.connections.length).toBeGreaterThan(0);
    expect(seen.connections.length).toBeLessThan(64);
    expect([...seen.paths.values()].flat().every((path) => path === '/work')).toBe(true);
  });

  it('counts latency from each request’s due time: a request kept waiting for a connection counts its wait', async () => {
    // One connection, a request due every 10 ms, 50 ms per answer: request 19 is due at 190 ms and cannot be
    // answered before 20 × 50 = 1,000 ms. Measured from its send, as autocannon's -R does, it would show 50 ms.
    const { base } = await start(50);
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: () => '{}', rate: 100, seconds: 0.2, connections: 1, openWith: '/open' });

    expect(figures).toMatchObject({ sent: 20, non_2xx: 0, errors: 0, connections_opened: 1 });
    expect(figures.max_ms).toBeGreaterThanOrEqual(750);
    expect(figures.sent_late).toBeGreaterThanOrEqual(15);
    // From the send, each request took its own 50 ms: the wait for the connection is left out.
    expect(figures.p99_from_send_ms).toBeGreaterThanOrEqual(45);
    expect(figures.p99_from_send_ms).toBeLessThan(200);
  });

  it('reports the answers that were not 2xx', async () => {
    const { base } = await start(0);
    server?.removeAllListeners('request');
    server?.on('request', (req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = req.url === '/open' ? 200 : 503;
        res.end('{}');
      });
    });
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: () => '{}', rate: 100, seconds: 0.5, connections: 4, openWith: '/open' });

    expect(figures).toMatchObject({ sent: 50, non_2xx: 50, errors: 0, connections_opened: 4 });
  });

  it('gives the p99 of each second by due time: a slow first second shows in its own figure only', async () => {
    const { base } = await start(0);
    server?.removeAllListeners('request');
    server?.on('request', (req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        // Requests 0–39 (due in the first second at 40/s) take SLOW_MS, the later ones none.
        const n = req.url === '/open' ? -1 : (JSON.parse(body) as { n: number }).n;
        setTimeout(() => res.end('{}'), n >= 0 && n < 40 ? SLOW_MS : 0);
      });
    });
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: (n) => `{"n":${n}}`, rate: 40, seconds: 2, connections: 8, openWith: '/open' });

    expect(figures).toMatchObject({ sent: 80, non_2xx: 0, errors: 0 });
    expect(figures.p99_ms_by_second).toHaveLength(2);
    expect(figures.p99_ms_by_second[0]).toBeGreaterThanOrEqual(SLOW_MS - 5);
    expect(figures.p99_ms_by_second[1]).toBeLessThan(FAST_BELOW_MS);
  });

  it('starts the clock settleMs after the connections are open', async () => {
    const { base } = await start(0);
    const arrivals: Array<{ path: string; at: number }> = [];
    server?.prependListener('request', (req) => arrivals.push({ path: req.url ?? '', at: performance.now() }));
    const figures = await openLoop({
      url: `${base}/work`,
      headers: {},
      body: () => '{}',
      rate: 100,
      seconds: 0.1,
      connections: 4,
      openWith: '/open',
      settleMs: 300,
    });

    expect(figures).toMatchObject({ sent: 10, errors: 0, connections_opened: 4 });
    const lastOpen = Math.max(...arrivals.filter((a) => a.path === '/open').map((a) => a.at));
    const firstWork = Math.min(...arrivals.filter((a) => a.path === '/work').map((a) => a.at));
    expect(firstWork - lastOpen).toBeGreaterThanOrEqual(290);
  });

  it('keeps the warm-up out of the run: its slow first second is in warm_up, not in the figures', async () => {
    const { base } = await start(0);
    server?.removeAllListeners('request');
    server?.on('request', (req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        // Requests 0–39 (the first second at 40/s: the warm-up) take SLOW_MS, the later ones none.
        const n = req.url === '/open' ? -1 : (JSON.parse(body) as { n: number }).n;
        setTimeout(() => res.end('{}'), n >= 0 && n < 40 ? SLOW_MS : 0);
      });
    });
    const bodies: number[] = [];
    const figures = await openLoop({
      url: `${base}/work`,
      headers: {},
      body: (n) => {
        bodies.push(n);
        return `{"n":${n}}`;
      },
      rate: 40,
      seconds: 1,
      connections: 8,
      openWith: '/open',
      warmUpSeconds: 1,
    });

    // 40 warm-up requests, then the run's 40, numbered on: 80 distinct bodies.
    expect(bodies).toEqual(Array.from({ length: 80 }, (_, n) => n));
    expect(figures).toMatchObject({ sent: 40, non_2xx: 0, errors: 0 });
    expect(figures.warm_up).toMatchObject({ seconds: 1, sent: 40, non_2xx: 0, errors: 0 });
    expect(figures.warm_up?.p99_ms).toBeGreaterThanOrEqual(SLOW_MS - 5);
    expect(figures.p99_ms).toBeLessThan(FAST_BELOW_MS);
    expect(figures.p99_ms_by_second).toHaveLength(1);
  });

  it('has no warm_up without warmUpSeconds', async () => {
    const { base } = await start(0);
    const figures = await openLoop({ url: `${base}/work`, headers: {}, body: () => '{}', rate: 100, seconds: 0.1, connections: 2, openWith: '/open' });

    expect(figures.sent).toBe(10);
    expect(figures.warm_up).toBeUndefined();
  });
});

describe('reading an answer (bench/http-connections.ts)', () => {
  const answer = (text: string) => readAnswer(Buffer.from(text, 'latin1'));

  it('reads a Content-Length body to its end, and waits for the rest of one cut short', () => {
    const whole = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{"action":"allow"}';
    expect(answer(whole.slice(0, -1))).toEqual({ done: true, status: 200, end: whole.length - 1, close: false });
    expect(answer(whole.slice(0, -2))).toEqual({ done: false });
    expect(answer(whole.slice(0, 30))).toEqual({ done: false });
    expect(answer('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}')).toMatchObject({
      done: true,
      status: 503,
      close: true,
    });
  });

  it('reads a chunked body to its last chunk, and a 204 with none', () => {
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
    expect(answer(chunked)).toEqual({ done: true, status: 200, end: chunked.length, close: false });
    for (const cut of [chunked.length - 1, chunked.length - 5, chunked.length - 12]) expect(answer(chunked.slice(0, cut))).toEqual({ done: false });
    expect(answer('HTTP/1.1 204 No Content\r\n\r\n')).toMatchObject({ done: true, status: 204 });
  });
});

describe('open-loop driver when the server fails', () => {
  it('counts a request whose connection the server closes as an error, and goes on over new connections', async () => {
    // Closes the connection of every third request without answering.
    let n = 0;
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        n += 1;
        if (req.url !== '/open' && n % 3 === 0) req.socket.destroy();
        else res.end('{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const figures = await openLoop({
      url: `http://127.0.0.1:${port}/work`,
      headers: {},
      body: () => '{}',
      rate: 200,
      seconds: 0.3,
      connections: 4,
      openWith: '/open',
    });

    expect(figures.sent).toBe(60);
    expect(figures.errors).toBeGreaterThanOrEqual(15);
    expect(figures.errors).toBeLessThanOrEqual(25);
    expect(figures.non_2xx).toBe(0);
  });

  it('ends with every request an error when nothing listens, rather than waiting for ever', async () => {
    // A port that was just free: connections to it are refused.
    const probe = createTcpServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const figures = await openLoop({ url: `http://127.0.0.1:${port}/work`, headers: {}, body: () => '{}', rate: 100, seconds: 0.1, connections: 2 });

    expect(figures).toMatchObject({ sent: 10, errors: 10, achieved_per_second: 0 });
  });
});
