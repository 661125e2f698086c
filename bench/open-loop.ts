// An open-loop load at a fixed rate (issue 12): request i is due at start + i / rate whatever happened to
// the ones before it, and its latency runs from its due time to its response, so a request sent late (the
// driver or the service fell behind) counts against the service. autocannon's `-R` sends each connection's
// quota back to back and measures from the send, which hides the tail. The driver sends from a timer that
// wakes about every millisecond and sends every request then due, over keep-alive connections (at most
// `connections`; a request waiting for one waits on the clock) of bench/http-connections.ts: node:net, with a
// request written as one string and an answer read for its status and length, because the driver shares the
// cores with the service (node:http's client cost 238 µs of CPU a request there at 1,000 verifies a second,
// these 153: `driver_cpu_us`).
//
// The connections are opened before the clock starts (as wrk2 does) and used in turn. Opened on demand,
// they queued unaccepted: since libuv 1.45 (Node 20) a server accepts one connection per turn of its event
// loop (libuv/libuv#3696, nodejs/node#57364), and under load a turn takes milliseconds, so the connections
// the driver opened while its first requests were being answered waited in the listen queue (`ss -ltn`
// showed 170 of them draining at about 35 a second), and the requests on them for 1-3 s: the p99 measured
// the driver's warm-up, not verify. Used in turn (FIFO), none sits idle long enough for the server's
// keep-alive timeout to close it.
//
// With `warmUpSeconds`, the clock starts that long before the measured run, at the same rate on the same
// connections, and those requests' figures are kept apart (`warm_up`).
import { ConnectionPool, requestBytes, requestHead } from './http-connections.js';

export interface OpenLoopOptions {
  url: string;
  headers: Record<string, string>;
  /** Body of request n (0-based). */
  body(n: number): string;
  /** Requests per second. */
  rate: number;
  seconds: number;
  connections: number;
  /** A cheap request (its path; POST, no body) sent on every connection at once to open them before the clock starts. */
  openWith?: string;
  /**
   * How long to wait after opening the connections before the clock starts (default 0). Opening them sends
   * `connections` requests at once; the collections and recompilations that burst leaves behind, in the
   * driver and in the service, otherwise land on the first requests of the run.
   */
  settleMs?: number;
  /**
   * Seconds sent at the same rate on the same connections before the measured `seconds` (default 0), the
   * clock running on through both: their figures are `warm_up`'s, not the run's. The first second after a
   * heavier load is a recovery (the collector catching up, code deoptimised by the other load's shapes and
   * compiled again), not the service at this rate; the closed-loop loads are warmed likewise.
   */
  warmUpSeconds?: number;
}

/** What the warm-up saw (OpenLoopOptions.warmUpSeconds), kept beside the run's figures rather than in them. */
export interface WarmUpFigures {
  seconds: number;
  sent: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
}

export interface OpenLoopFigures {
  rate: number;
  seconds: number;
  sent: number;
  /** Responses per second actually received over the run. */
  achieved_per_second: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
  /** Requests sent more than 1 ms after their due time (the driver or its connections fell behind). */
  sent_late: number;
  /**
   * The 99th percentile of the latency from each request's send (its socket's turn) to its answer, not from its
   * due time: p99_ms less what the driver's lateness and the wait for a connection added.
   */
  p99_from_send_ms: number;
  /** Connections opened before the clock started. */
  connections_opened: number;
  /**
   * CPU µs of the driver's process (this one, every thread) per request sent, warm-up included: what the driver
   * takes from the cores it shares with the service.
   */
  driver_cpu_us: number;
  /**
   * The p99 of each second of the run, the requests grouped by the second they were due in: tells a tail spread
   * over the run from one that a single second (the first, after a heavier load) makes.
   */
  p99_ms_by_second: number[];
  /** The warm-up's figures, when there was one. */
  warm_up?: WarmUpFigures;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const at = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, at)] as number) * 100) / 100;
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopFigures> {
  const target = new URL(options.url);
  const pool = new ConnectionPool(target.hostname, Number(target.port), options.connections);
  const opened = options.openWith ? await openConnections(pool, target, options.openWith, options.connections) : 0;
  const head = requestHead('POST', target.pathname, target.host, options.headers);
  if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
  const total = Math.round(options.rate * options.seconds);
  // Requests 0 … warm − 1 are the warm-up's; the run's are numbered on from there, on the same clock.
  const warm = Math.round(options.rate * (options.warmUpSeconds ?? 0));
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  const bySecond: number[][] = Array.from({ length: Math.ceil(options.seconds) }, () => []);
  const fromSend: number[] = [];
  const warmUp = { latencies: [] as number[], non2xx: 0, errors: 0 };
  let non2xx = 0;
  let errors = 0;
  let late = 0;
  let sent = 0;
  let settled = 0;
  const started = performance.now();
  const measuredFrom = started + warm * interval;
  const driverCpu = process.cpuUsage();

  await new Promise<void>((done) => {
    const finish = () => {
      settled += 1;
      if (settled === warm + total) done();
    };
    const send = (n: number, due: number) => {
      const measured = n >= warm;
      let sentAt = due;
      pool.request({
        bytes: requestBytes(head, options.body(n)),
        onSocket: () => {
          sentAt = performance.now();
          if (measured && sentAt - due > 1) late += 1;
        },
        onAnswer: (status) => {
          const now = performance.now();
          const ok = status >= 200 && status < 300;
          if (measured) {
            latencies.push(now - due);
            bySecond[Math.floor((n - warm) / options.rate)]?.push(now - due);
            fromSend.push(now - sentAt);
            if (!ok) non2xx += 1;
          } else {
            warmUp.latencies.push(now - due);
            if (!ok) warmUp.non2xx += 1;
          }
          finish();
        },
        onError: () => {
          if (measured) errors += 1;
          else warmUp.errors += 1;
          finish();
        },
      });
    };
    const tick = () => {
      const now = performance.now();
      while (sent < warm + total && started + sent * interval <= now) {
        send(sent, started + sent * interval);
        sent += 1;
      }
      if (sent < warm + total) setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
    };
    tick();
  });
  const elapsed = (performance.now() - measuredFrom) / 1000;
  const { user, system } = process.cpuUsage(driverCpu);
  pool.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rate: options.rate,
    seconds: options.seconds,
    sent: total,
    achieved_per_second: Math.round(sorted.length / elapsed),
    p50_ms: percentile(sorted, 50),
    p90_ms: percentile(sorted, 90),
    p99_ms: percentile(sorted, 99),
    max_ms: percentile(sorted, 100),
    non_2xx: non2xx,
    errors,
    sent_late: late,
    p99_from_send_ms: percentile(
      fromSend.sort((a, b) => a - b),
      99,
    ),
    connections_opened: opened,
    driver_cpu_us: Math.round((user + system) / (warm + total)),
    p99_ms_by_second: bySecond.map((second) =>
      percentile(
        second.sort((a, b) => a - b),
        99,
      ),
    ),
    ...(warm > 0 ? { warm_up: warmUpFigures(options.warmUpSeconds ?? 0, warmUp) } : {}),
  };
}

function warmUpFigures(seconds: number, seen: { latencies: number[]; non2xx: number; errors: number }): WarmUpFigures {
  const sorted = seen.latencies.sort((a, b) => a - b);
  return {
    seconds,
    sent: sorted.length + seen.errors,
    p99_ms: percentile(sorted, 99),
    max_ms: percentile(sorted, 100),
    non_2xx: seen.non2xx,
    errors: seen.errors,
  };
}

/** Opens `count` keep-alive connections of `pool`, one request each, all at once; resolves with how many stayed open. */
async function openConnections(pool: ConnectionPool, target: URL, path: string, count: number): Promise<number> {
  const bytes = requestBytes(requestHead('POST', path, target.host, {}), '');
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          pool.request({ bytes, onSocket: () => {}, onAnswer: () => resolve(), onError: reject });
        }),
    ),
  );
  return pool.size;
}
