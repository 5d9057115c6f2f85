import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['services/**/*.test.ts', 'test/**/*.test.ts', 'operator/**/*.test.ts'],
    // Integration and end-to-end tests start real servers and databases; two cores, so keep
    // the pool small and the timeouts generous rather than flaky.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
