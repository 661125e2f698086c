// What GET /metrics costs (BENCH_ONLY=metrics): verify throughput on one service with no scraper, then
// with a scraper reading /metrics every second (as Prometheus would, at a tighter interval than its
// usual 15 s), alternated twice (A B A B) so drift on a shared machine hits both; the ratio
// scraped/unscraped is the figure. Also: the access log's cost, verify with LOG_LEVEL=info (one line per
// request) against LOG_LEVEL=warn (none), each in a service of its own.
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Figures, Harness } from './velocity.js';

interface Service {
  base: string;
  accessToken: string;
}

const SCRAPE_INTERVAL_MS = 1000;

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
          request.body = JSON.stringify({ email_address: `user.${n}@example.com`, ipv4_address: `198.51.${Math.floor(host / 256)}.${host % 256}`, show_results: true });
          return request;
        },
      },
    ],
  };
}

async function run<S extends Service>(h: Harness<S>, service: S, scrape: boolean): Promise<Figures & { scrapes?: number; scrape_ms_max?: number }> {
  let scrapes = 0;
  let slowest = 0;
  const timer = scrape
    ? setInterval(() => {
        const started = performance.now();
        void fetch(`${service.base}/metrics`)
          .then((res) => res.text())
          .then(() => {
            scrapes += 1;
            slowest = Math.max(slowest, performance.now() - started);
          });
      }, SCRAPE_INTERVAL_MS)
    : null;
  try {
    const figures = h.figures(await autocannon(verifyOptions(service, h.connections, h.seconds)));
    const label = scrape ? `with a /metrics scrape every ${SCRAPE_INTERVAL_MS} ms` : 'no scraper';
    console.log(`verify, ${label}: ${figures.requests_per_second} req/s, p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms`);
    return scrape ? { ...figures, scrapes, scrape_ms_max: Math.round(slowest) } : figures;
  } finally {
    if (timer) clearInterval(timer);
  }
}

export async function metricsBench<S extends Service>(h: Harness<S>, dir: string): Promise<Record<string, unknown>> {
  const service = await h.startService(join(dir, 'metrics.sqlite'));
  const runs: { plain: Figures[]; scraped: Figures[] } = { plain: [], scraped: [] };
  try {
    await autocannon(verifyOptions(service, h.connections, 2));
    for (let round = 0; round < 2; round++) {
      runs.plain.push(await run(h, service, false));
      runs.scraped.push(await run(h, service, true));
    }
    const res = await fetch(`${service.base}/metrics`);
    const exposition = await res.text();
    const sum = (list: Figures[]) => list.reduce((total, f) => total + f.requests_per_second, 0);
    const ratio = Number((sum(runs.scraped) / sum(runs.plain)).toFixed(3));
    console.log(`/metrics cost: verify req/s scraped / unscraped = ${ratio}; exposition ${exposition.length} bytes`);
    const quiet = await h.startService(join(dir, 'quiet.sqlite'), { LOG_LEVEL: 'warn' });
    let accessLog: Record<string, unknown>;
    try {
      await autocannon(verifyOptions(quiet, h.connections, 2));
      const withoutLog = await run(h, quiet, false);
      const withLog = await run(h, service, false);
      accessLog = {
        info: withLog,
        warn: withoutLog,
        ratio_logged_to_quiet: Number((withLog.requests_per_second / withoutLog.requests_per_second).toFixed(3)),
      };
      console.log(`access log cost: verify req/s LOG_LEVEL=info / LOG_LEVEL=warn = ${accessLog.ratio_logged_to_quiet}`);
    } finally {
      await h.stop(quiet);
    }
    return { scrape_interval_ms: SCRAPE_INTERVAL_MS, runs, ratio_scraped_to_unscraped: ratio, exposition_bytes: exposition.length, access_log: accessLog };
  } finally {
    await h.stop(service);
  }
}
