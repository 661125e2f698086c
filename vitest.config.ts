import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'plugins/**/*.test.ts'],
    // The benchmark harness's own tests run with `npm run bench:check` (vitest.bench.config.ts).
    exclude: [...configDefaults.exclude, 'test/bench/**'],
    // Bounds for a test that hangs, not for speed: a test that starts processes (serve, WORKERS, data update)
    // took 15 s of a 20 s bound on a host 5 times slower than others seen here, and more beside other work.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One worker per core, not vitest's default of one fewer: most of a test's time is spent waiting on the
    // servers and processes it started, so two files at once on two cores keep both busy (decision 0079).
    maxWorkers: availableParallelism(),
    // Test files share their worker's modules (each file still gets its own servers, stores and files): the
    // data lists and the plugin registry load once per worker, not once per file (decision 0074).
    isolate: false,
    // Transformed test and source files are kept in node_modules/.experimental-vitest-cache, keyed by their
    // content: a second run on a machine transforms only what changed (decision 0074).
    experimental: { fsModuleCache: true },
  },
});
