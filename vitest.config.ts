import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite loads both cores per scenario: it runs on its own (npm run test:reliability).
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts a throwaway PostgreSQL (scripts/start-postgres.sh) unless HOOKRELAY_TEST_PG_URL is set.
    globalSetup: ['./test/setup/postgres-global-setup.ts'],
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
