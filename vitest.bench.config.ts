import { defineConfig } from 'vitest/config';

// `npm run bench:check`: the tests of the benchmark harness (bench/), kept out of `npm test`, which tests
// the service's behaviour.
export default defineConfig({
  test: {
    include: ['test/bench/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
