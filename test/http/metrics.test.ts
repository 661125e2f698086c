// GET /metrics: the Prometheus exposition, read as a scraper reads it (parsed text). Requests are counted
// by route pattern (never the raw URL) and status, with a latency histogram; verdicts by action; plugin
// runs, event commits (batch size, commit time) and process metrics are there; a rejection other modules
// count shows up. With METRICS_TOKEN it needs the Bearer token; with METRICS_PORT it is not on the main port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { carriesToken } from '../../src/http/metrics.js';
import { countRejection } from '../../src/metrics.js';
import { bearer, post, send, startService, type TestServer } from '../support/server.js';

/** One sample line: metric name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`; 0 when there is none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

describe('on the main port, no token', () => {
  let server: TestServer;
  let project: CreatedProject;
  beforeAll(async () => {
    server = await startService();
    project = await server.createProject({ name: 'metrics' });
  });
  afterAll(() => server?.close());

  const scrape = async () => {
    const res = await send('GET', server.url, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.text);
  };

  it('counts verifies by route and status, with their latency, actions, plugin runs and event commits', async () => {
    const before = await scrape();
    const route = { route: '/v1/public/verify', method: 'POST', status: '200' };
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect((await post(server.url, '/v1/public/verify', { email_address: email }, bearer(project.keys.access_token))).status).toBe(200);
    }
    expect((await post(server.url, '/v1/public/verify', { email_address: 'x@example.com' })).status).toBe(401);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect(delta('email_trust_http_requests_total', route)).toBe(3);
    expect(delta('email_trust_http_requests_total', { ...route, status: '401' })).toBe(1);
    expect(delta('email_trust_http_request_duration_seconds_count', route)).toBe(3);
    expect(delta('email_trust_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(3);
    expect(delta('email_trust_http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    expect(delta('email_trust_actions_total', { operation: 'verify', action: 'allow' })).toBe(3);
    expect(delta('email_trust_plugin_duration_seconds_count', { plugin: 'structure' })).toBe(3);
    expect(delta('email_trust_event_batch_rows_sum')).toBe(3);
    expect(delta('email_trust_event_commit_duration_seconds_count', { outcome: 'committed' })).toBeGreaterThanOrEqual(1);
    // The scrape before this one is counted too, under its route.
    expect(delta('email_trust_http_requests_total', { route: '/metrics', status: '200' })).toBe(1);
  });

  it('labels a request no route matched "unmatched", never with its path', async () => {
    const before = await scrape();
    expect((await post(server.url, '/v1/secret-path-abc', {})).status).toBe(404);
    const text = (await send('GET', server.url, '/metrics')).text;
    expect(text).not.toContain('secret-path-abc');
    expect(sampleValue(parseExposition(text), 'email_trust_http_requests_total', { route: 'unmatched', status: '404' })).toBe(
      sampleValue(before, 'email_trust_http_requests_total', { route: 'unmatched', status: '404' }) + 1,
    );
  });

  it('shows the process metrics and the rejections other modules count', async () => {
    countRejection('rate_limit', 'verify');
    countRejection('quota', 'intelligence');
    const samples = await scrape();
    expect(sampleValue(samples, 'email_trust_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'email_trust_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'email_trust_rejections_total', { kind: 'rate_limit', limit: 'verify' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, 'email_trust_rejections_total', { kind: 'quota', limit: 'intelligence' })).toBeGreaterThanOrEqual(1);
  });
});

describe('with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { METRICS_TOKEN: token } });
  });
  afterAll(() => server?.close());

  it.each([
    ['no header', {}],
    ['another token', bearer('metrics-token-0123456789abcdeX')],
    ['a prefix of it', bearer(token.slice(0, -1))],
    ['the token without Bearer', { authorization: token }],
  ])('refuses 401: %s', async (_name, headers) => {
    const res = await send('GET', server.url, '/metrics', undefined, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(res.body.id).toBe(res.headers.get('x-request-id'));
    expect(res.text).not.toContain('email_trust_');
  });

  it('answers the exposition with the token', async () => {
    const res = await send('GET', server.url, '/metrics', undefined, bearer(token));
    expect(res.status).toBe(200);
    expect(parseExposition(res.text).length).toBeGreaterThan(10);
  });

  it('leaves the other endpoints as they are', async () => {
    expect((await send('GET', server.url, '/healthz')).status).toBe(200);
  });
});

describe('with METRICS_PORT', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { METRICS_PORT: '0' } });
  });
  afterAll(() => server?.close());

  it('is not served on the main port (the serve test reads it on its own port)', async () => {
    expect((await send('GET', server.url, '/metrics')).status).toBe(404);
  });
});

describe('token comparison', () => {
  it.each([
    ['Bearer abc', 'abc', true],
    ['bearer abc', 'abc', true],
    ['Bearer  abc ', 'abc', true],
    ['Bearer abcd', 'abc', false],
    ['Bearer ab', 'abc', false],
    ['Basic abc', 'abc', false],
    ['', 'abc', false],
    [undefined, 'abc', false],
  ])('%s against %s: %s', (header, token, expected) => {
    expect(carriesToken(header, token)).toBe(expected);
  });
});
