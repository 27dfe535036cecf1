import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the scenarios of docs/reliability.md. Files run one after another:
 * each scenario loads both cores (a `listen` process and its load generator), and latency and
 * timeout bounds only mean something when scenarios do not compete for the CPU.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
