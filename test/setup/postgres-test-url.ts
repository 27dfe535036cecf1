/**
 * The PostgreSQL server of a test file: the global setup's (inject('pgUrl')), else
 * HOOKRELAY_TEST_PG_URL, else a throwaway server this file starts and stops itself. Each store
 * gets a fresh schema (search_path in the URL's `options`), dropped after the file.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { startThrowawayPostgres } from './postgres-global-setup.js';

export interface TestPostgres {
  /** The server's database URL (available once beforeAll ran). */
  url(): string;
  /** A URL whose search_path is a new, empty schema. */
  freshSchema(): Promise<string>;
}

export function useTestPostgres(): TestPostgres {
  let base = '';
  let stop: (() => void) | null = null;
  const schemas: string[] = [];

  beforeAll(() => {
    base = (inject('pgUrl') as string | undefined) || process.env.HOOKRELAY_TEST_PG_URL || '';
    if (!base) {
      const server = startThrowawayPostgres();
      base = server.url;
      stop = server.stop;
    }
  }, 120_000);

  afterAll(async () => {
    if (stop) stop();
    else if (schemas.length > 0) {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }, 60_000);

  return {
    url: () => base,
    async freshSchema() {
      const schema = `hr_test_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await client.end();
      }
      schemas.push(schema);
      const url = new URL(base);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return url.href;
    },
  };
}
