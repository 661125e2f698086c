// bench/service-view.ts against prom-client's own exposition, served over node:http as the service serves
// GET /metrics: the figures are differences between two scrapes, filtered by route, status and outcome.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { added, parseExposition, scrape, serviceView } from '../../bench/service-view.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1];

let server: Server | null = null;

afterEach(() => {
  server?.close();
  server = null;
});

/** A registry with the service's three series (names and labels as src/metrics.ts has them), served at /metrics. */
async function served() {
  const registry = new Registry();
  const http = new Histogram({
    name: 'email_trust_http_request_duration_seconds',
    help: 'h',
    labelNames: ['route', 'method', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const commits = new Histogram({
    name: 'email_trust_event_commit_duration_seconds',
    help: 'c',
    labelNames: ['outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  server = createServer(async (_req, res) => res.end(await registry.metrics()));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, http, commits };
}

describe('the service view of a load', () => {
  it('counts what happened between two scrapes only: verify answers over 10 ms, slow commits', async () => {
    const { base, http, commits } = await served();
    const verify = { route: '/v1/public/verify', method: 'POST', status: '200' };
    // Before the load: history that must not count.
    http.observe(verify, 0.5);
    commits.observe({ outcome: 'committed' }, 0.2);
    const before = await scrape(base);
    for (const seconds of [0.002, 0.004, 0.004, 0.008, 0.02, 0.04]) http.observe(verify, seconds);
    http.observe({ ...verify, status: '400' }, 0.3); // not an answer of verify's
    http.observe({ route: '/v1/public/ip', method: 'POST', status: '200' }, 0.3); // another route
    for (const seconds of [0.0005, 0.012, 0.03]) commits.observe({ outcome: 'committed' }, seconds);
    commits.observe({ outcome: 'failed' }, 0.5);
    const view = serviceView(before, await scrape(base));

    expect(view).toEqual({
      answers: 6,
      answers_over_10_ms: 2,
      in_service: [
        { le_ms: '2.5', share: 16.67 },
        { le_ms: '5', share: 50 },
        { le_ms: '10', share: 66.67 },
        { le_ms: '25', share: 83.33 },
      ],
      commits: 3,
      commits_over_10_ms: 2,
    });
  });

  it('reads a series only under its own name and with every label asked for', () => {
    const text = ['# HELP a_total x', 'a_total{x="1",y="2"} 5', 'a_total{x="1",y="3"} 7', 'a_total_created{x="1"} 99', 'b 4'].join('\n');
    const empty = parseExposition('');
    const after = parseExposition(text);

    expect(added(empty, after, 'a_total', ['x="1"'])).toBe(12);
    expect(added(empty, after, 'a_total', ['y="3"'])).toBe(7);
    expect(added(empty, after, 'a_total', ['x="2"'])).toBe(0);
    expect(added(empty, after, 'b')).toBe(4);
    expect(added(empty, after, 'a')).toBe(0);
  });
});
