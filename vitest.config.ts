import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'plugins/**/*.test.ts'],
    // The benchmark harness's own tests run with `npm run bench:check` (vitest.bench.config.ts).
    exclude: [...configDefaults.exclude, 'test/bench/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share their worker's modules (each file still gets its own servers, stores and files): the
    // data lists and the plugin registry load once per worker, not once per file. 118 files took 198 s
    // isolated on this 2-core machine and 140 s shared, with the machine busier.
    isolate: false,
  },
});
