// What the service itself saw of a load (GET /metrics, scraped before and after it): how its verify answers
// were timed inside it (from Koa to the answer set, the service's latency histogram) and how many event commits
// took longer than 10 ms (the event writer's timing of each commit, a checkpoint inside one included).
// Beside the driver's figures (bench/open-loop.ts) this tells a fixed-rate run's tail apart: late sends (the
// driver), answers slow inside the service (a slow commit or velocity read), or answers quick
// inside it but slow end to end (the request waited for the event loop before Koa, or its answer after).

/** Every sample of a Prometheus text exposition, by its series (name and labels as written). */
export type Scrape = ReadonlyMap<string, number>;

export function parseExposition(text: string): Scrape {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space > 0) samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

export async function scrape(base: string): Promise<Scrape> {
  return parseExposition(await (await fetch(`${base}/metrics`)).text());
}

/** The sum over the series of `name` whose labels include every one of `labels` (`key="value"`), after minus before. */
export function added(before: Scrape, after: Scrape, name: string, labels: readonly string[] = []): number {
  let sum = 0;
  for (const [series, value] of after) {
    if (!matches(series, name, labels)) continue;
    sum += value - (before.get(series) ?? 0);
  }
  return sum;
}

function matches(series: string, name: string, labels: readonly string[]): boolean {
  if (series === name) return labels.length === 0;
  if (!series.startsWith(`${name}{`)) return false;
  const inside = series.slice(name.length + 1, -1).split(',');
  return labels.every((label) => inside.includes(label));
}

export interface ServiceView {
  /** Verify answers (200) the service gave between the scrapes. */
  answers: number;
  /** Of them, those it took more than 10 ms over (its histogram's 10 ms bound). */
  answers_over_10_ms: number;
  /** The share answered within each bound, in % (as `in_service` of BENCH_ONLY=open-loop). */
  in_service: Array<{ le_ms: string; share: number }>;
  /** Event commits, and those that took more than 10 ms. */
  commits: number;
  commits_over_10_ms: number;
}

const VERIFY_OK = ['route="/v1/public/verify"', 'status="200"'];
const BOUNDS = ['0.0025', '0.005', '0.01', '0.025'];

export function serviceView(before: Scrape, after: Scrape): ServiceView {
  const http = 'email_trust_http_request_duration_seconds_bucket';
  const answers = added(before, after, http, [...VERIFY_OK, 'le="+Inf"']);
  const within = (le: string) => added(before, after, http, [...VERIFY_OK, `le="${le}"`]);
  const commit = 'email_trust_event_commit_duration_seconds_bucket';
  const commits = added(before, after, commit, ['outcome="committed"', 'le="+Inf"']);
  return {
    answers,
    answers_over_10_ms: answers - within('0.01'),
    in_service: BOUNDS.map((le) => ({
      le_ms: String(Number(le) * 1000),
      share: answers > 0 ? Math.round((within(le) / answers) * 10_000) / 100 : 0,
    })),
    commits,
    commits_over_10_ms: commits - added(before, after, commit, ['outcome="committed"', 'le="0.01"']),
  };
}
