// The node flags `email-trust serve` is started with: package.json's `start`, the container's ENTRYPOINT and
// bin/email-trust.js's shebang (for npx and a shell, which run the file itself) give them
// (test/cli/serve-flags.test.ts keeps the four in step), and `npm run bench` starts its service with them. They can only be given when node starts: V8 sizes its thread pool before any of our code runs.
//
// --v8-pool-size=1: V8's background work (concurrent marking, the scavenger's helpers, sweeping, compiling)
// on one thread instead of node's default four. On a 2-core machine each full collection of the service's
// heap (about 45 MB live) ran four marking threads beside the event loop, the store thread and the caller:
// 101-194 ms of their CPU within 40-65 ms (--trace-gc-nvp), every 5-8 s at 1,000 verifies a second, and the
// answers of that stretch queued for cores: 34-204 answers over 10 ms inside the service per 12 s, and a
// fixed-rate p99 of 11.5-20.2 ms in nine runs. With one thread, 0-36 answers and a p99 of 7.9-11.3 ms (six
// runs), the same verify throughput and intelligence's up by a quarter (bench/README.md, twenty-seventh pass).
// Setting it later (v8.setFlagsFromString) changes nothing: tried, the marking threads stayed four.

/** The node flags `serve` is started with, in the order they are given. */
export const SERVE_NODE_FLAGS: readonly string[] = ['--v8-pool-size=1'];

/** The flag's name, without a value: `--v8-pool-size` of `--v8-pool-size=1`. */
const nameOf = (flag: string): string => flag.split('=')[0] as string;

/**
 * SERVE_NODE_FLAGS this process was started without, on its command line or in NODE_OPTIONS. A flag given
 * with another value counts as given: the operator chose it.
 */
export function missingServeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(nameOf);
  return SERVE_NODE_FLAGS.filter((flag) => !given.includes(nameOf(flag)));
}
