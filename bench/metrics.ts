// What GET /metrics costs (BENCH_ONLY=metrics): verify throughput on one service with no scraper and
// with a scraper reading /metrics every second (as Prometheus would, at a tighter interval than its
// usual 15 s), alternated over BENCH_METRICS_ROUNDS pairs (default 4, order swapped every other pair)
// so that warm-up and drift on a shared machine hit both; the figure is the ratio scraped/unscraped (median of the pairs, and over all runs), plus
// the time one scrape takes (its cost is that much CPU once per interval). Then the access log's cost:
// verify on a service with the access log (one line per request, LOG_LEVEL=info) against one with
// ACCESS_LOG=off, alternated the same way.
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Figures, Harness } from './velocity.js';

interface Service {
  base: string;
  accessToken: string;
}

const SCRAPE_INTERVAL_MS = 1000;
const ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 4);

function verifyOptions(service: Service, connections: number, seconds: number): autocannon.Options {
  let n = 0;
  return {
    url: `${service.base}/v1/public/verify`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${service.accessToken}` },
    requests: [
      {
        setupRequest: (request: autocannon.Request) => {
          n += 1;
          const host = n % 1000;
          request.body = JSON.stringify({
            email_address: `user.${n}@example.com`,
            ipv4_address: `198.51.${Math.floor(host / 256)}.${host % 256}`,
            show_results: true,
          });
          return request;
        },
      },
    ],
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const round3 = (value: number) => Number(value.toFixed(3));

async function run<S extends Service>(h: Harness<S>, service: S, label: string, scrapeTimes?: number[]): Promise<Figures> {
  const timer = scrapeTimes
    ? setInterval(() => {
        const started = performance.now();
        void fetch(`${service.base}/metrics`)
          .then((res) => res.text())
          .then(() => scrapeTimes.push(performance.now() - started));
      }, SCRAPE_INTERVAL_MS)
    : null;
  try {
    const figures = h.figures(await autocannon(verifyOptions(service, h.connections, h.seconds)));
    console.log(`verify, ${label}: ${figures.requests_per_second} req/s, p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms`);
    return figures;
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** A vs B in ROUNDS pairs, the order swapped every other pair; the ratio B/A per pair and over all runs. */
async function alternate(first: () => Promise<Figures>, second: () => Promise<Figures>) {
  const a: Figures[] = [];
  const b: Figures[] = [];
  // A B, B A, A B …: a service that speeds up as it warms (or a machine that gets busier) favours neither.
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(await first());
      b.push(await second());
    } else {
      b.push(await second());
      a.push(await first());
    }
  }
  const sum = (list: Figures[]) => list.reduce((total, f) => total + f.requests_per_second, 0);
  const pairs = a.map((f, i) => round3((b[i] as Figures).requests_per_second / f.requests_per_second));
  return { a, b, pair_ratios: pairs, median_ratio: round3(median(pairs)), overall_ratio: round3(sum(b) / sum(a)) };
}

export async function metricsBench<S extends Service>(h: Harness<S>, dir: string): Promise<Record<string, unknown>> {
  const service = await h.startService(join(dir, 'metrics.sqlite'));
  let quiet: S | undefined;
  try {
    quiet = await h.startService(join(dir, 'quiet.sqlite'), { ACCESS_LOG: 'off' });
    const other = quiet;
    await autocannon(verifyOptions(service, h.connections, 2));
    await autocannon(verifyOptions(other, h.connections, 2));
    const scrapeTimes: number[] = [];
    const scrape = await alternate(
      () => run(h, service, 'no scraper'),
      () => run(h, service, `a /metrics scrape every ${SCRAPE_INTERVAL_MS} ms`, scrapeTimes),
    );
    const exposition = await (await fetch(`${service.base}/metrics`)).text();
    console.log(
      `/metrics cost: verify req/s scraped / unscraped, median of ${ROUNDS} pairs ${scrape.median_ratio} (pairs ${scrape.pair_ratios.join(', ')}), ` +
        `over all runs ${scrape.overall_ratio}; one scrape ${Math.round(median(scrapeTimes))} ms (median under load), ${exposition.length} bytes`,
    );
    const log = await alternate(
      () => run(h, other, 'ACCESS_LOG=off'),
      () => run(h, service, 'access log on'),
    );
    console.log(
      `access log cost: verify req/s on / off, median of ${ROUNDS} pairs ${log.median_ratio} (pairs ${log.pair_ratios.join(', ')}), over all runs ${log.overall_ratio}`,
    );
    return {
      scrape_interval_ms: SCRAPE_INTERVAL_MS,
      rounds: ROUNDS,
      unscraped: scrape.a,
      scraped: scrape.b,
      ratio_scraped_to_unscraped_median: scrape.median_ratio,
      ratio_scraped_to_unscraped_pairs: scrape.pair_ratios,
      ratio_scraped_to_unscraped_overall: scrape.overall_ratio,
      scrape_ms_median: Math.round(median(scrapeTimes)),
      scrapes: scrapeTimes.length,
      exposition_bytes: exposition.length,
      access_log: {
        off: log.a,
        on: log.b,
        ratio_on_to_off_median: log.median_ratio,
        ratio_on_to_off_pairs: log.pair_ratios,
        ratio_on_to_off_overall: log.overall_ratio,
      },
    };
  } finally {
    if (quiet) await h.stop(quiet);
    await h.stop(service);
  }
}
