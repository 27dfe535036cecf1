import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite loads both cores per scenario: it runs on its own (npm run test:reliability).
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on two cores (vitest's default is one fewer than the cores: one, here): most
    // files wait on sockets, child processes and fsync, not the CPU.
    maxWorkers: 2,
    // Starts a throwaway PostgreSQL (scripts/start-postgres.sh) unless HOOKRELAY_TEST_PG_URL is set.
    globalSetup: ['./test/setup/postgres-global-setup.ts'],
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
