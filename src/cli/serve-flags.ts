// The node flags `email-trust serve` is started with: package.json's `start`, the container's ENTRYPOINT and
// bin/email-trust.js's shebang (for npx and a shell, which run the file itself) give them
// (test/cli/serve-flags.test.ts keeps the four in step), and `npm run bench` starts its service with them.
// They can only be given when node starts: V8 sizes its thread pool before any of our code runs
// (v8.setFlagsFromString later leaves the pool at four).
//
// --v8-pool-size=1: V8's background work (concurrent marking, the scavenger's helpers, sweeping, compiling)
// on one thread instead of node's default four, which on two cores took them from the event loop at each full
// collection and raised the fixed-rate p99 (docs/decisions/0035, measured while a store thread also ran; not
// measured again since SQLite runs on the event loop, 0065).

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
