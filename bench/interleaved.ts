// The endpoints' throughput in short turns, one after the other, many times (`interleaved` in bench/results.json):
// each load of the rounds runs 10 s, and on a machine whose speed moves from one minute to the next (the nineteenth
// machine's ip cost 72–139 µs a request from one load to the next) a ratio of two loads 10 s apart measures the
// machine as much as the service. Here every endpoint runs for SLICE seconds in each of TURNS turns, the order
// rotating from turn to turn, so that a slow stretch falls on every endpoint alike. Reported beside the rounds'
// ratios, not instead of them: the targets are judged on those.
import autocannon from 'autocannon';

/** One endpoint's load in one turn: the requests answered and the seconds it ran. */
export interface Slice {
  endpoint: string;
  turn: number;
  requests: number;
  seconds: number;
}

export interface InterleavedFigures {
  turns: number;
  slice_seconds: number;
  /** In the order of the first turn; each turn starts one further along. */
  endpoints: string[];
  /** Every turn's requests over every turn's seconds, per endpoint. */
  requests_per_second: Record<string, number>;
  /** Each endpoint's requests_per_second over the baseline's (the first endpoint), and the same per turn. */
  ratio_to_baseline: Record<string, number>;
  ratio_each_turn: Record<string, number[]>;
}

/** The endpoints in turn `turn`'s order: the list rotated by `turn`, so that each goes first, second … alike. */
export function turnOrder(endpoints: readonly string[], turn: number): string[] {
  const k = turn % endpoints.length;
  return [...endpoints.slice(k), ...endpoints.slice(0, k)];
}

const round3 = (n: number) => Number(n.toFixed(3));

/** The figures of a run's slices; `endpoints[0]` is the baseline every ratio is to. */
export function interleavedFigures(endpoints: readonly string[], slices: readonly Slice[], sliceSeconds: number): InterleavedFigures {
  const turns = new Set(slices.map((s) => s.turn)).size;
  const rate = (of: readonly Slice[]) => {
    const seconds = of.reduce((sum, s) => sum + s.seconds, 0);
    return seconds > 0 ? of.reduce((sum, s) => sum + s.requests, 0) / seconds : 0;
  };
  const baseline = endpoints[0] as string;
  const byEndpoint = (name: string) => slices.filter((s) => s.endpoint === name);
  const requestsPerSecond = Object.fromEntries(endpoints.map((name) => [name, Math.round(rate(byEndpoint(name)))]));
  const baseRate = rate(byEndpoint(baseline));
  const ratio: Record<string, number> = {};
  const each: Record<string, number[]> = {};
  for (const name of endpoints.slice(1)) {
    ratio[name] = baseRate > 0 ? round3(rate(byEndpoint(name)) / baseRate) : 0;
    each[name] = [...new Set(slices.map((s) => s.turn))].map((turn) => {
      const base = rate(slices.filter((s) => s.turn === turn && s.endpoint === baseline));
      return base > 0 ? round3(rate(slices.filter((s) => s.turn === turn && s.endpoint === name)) / base) : 0;
    });
  }
  return {
    turns,
    slice_seconds: sliceSeconds,
    endpoints: [...endpoints],
    requests_per_second: requestsPerSecond,
    ratio_to_baseline: ratio,
    ratio_each_turn: each,
  };
}

/** Runs each load for `sliceSeconds` in each of `turns` turns (turnOrder), with `connections` connections. */
export async function interleave(
  loads: Readonly<Record<string, autocannon.Options>>,
  options: { turns: number; sliceSeconds: number; connections: number },
): Promise<InterleavedFigures> {
  const endpoints = Object.keys(loads);
  const slices: Slice[] = [];
  for (let turn = 0; turn < options.turns; turn++) {
    for (const endpoint of turnOrder(endpoints, turn)) {
      const load = loads[endpoint] as autocannon.Options;
      // autocannon checks for its end once a sample (1 s by default): a shorter turn samples as often as it lasts.
      const sampleInt = Math.min(1000, options.sliceSeconds * 1000);
      const result = await autocannon({ ...load, connections: options.connections, duration: options.sliceSeconds, sampleInt });
      slices.push({ endpoint, turn, requests: result.requests.total, seconds: result.duration });
    }
  }
  return interleavedFigures(endpoints, slices, options.sliceSeconds);
}
