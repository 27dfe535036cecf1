/**
 * Vitest global setup: one PostgreSQL server for the whole run, so no PostgreSQL test is ever
 * skipped for lack of one. HOOKRELAY_TEST_PG_URL (a database the tests may create schemas in)
 * wins; otherwise scripts/start-postgres.sh makes a throwaway cluster (installing Debian's
 * postgresql when it is missing) and teardown stops and removes it. Tests read the URL with
 * `inject('pgUrl')` (see test/setup/postgres-test-url.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL database URL the tests may create schemas in; '' when none was set up. */
    pgUrl: string;
  }
}

const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));

export interface ThrowawayPostgres {
  url: string;
  /** Stops the server like a crash (`pg_ctl stop -m immediate`). */
  crash(): void;
  /** Starts it again on the same port (same URL). */
  restart(): void;
  /** Stops it and removes its folder. */
  stop(): void;
}

/** Starts a throwaway server in a fresh folder (fsync off: test data only). */
export function startThrowawayPostgres(): ThrowawayPostgres {
  const dir = mkdtempSync(join(tmpdir(), 'hookrelay-pg-'));
  const start = () =>
    execFileSync('bash', [join(SCRIPTS, 'start-postgres.sh'), dir], {
      env: { ...process.env, HOOKRELAY_PG_FSYNC: 'off' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const stopWith = (...flags: string[]) => execFileSync('bash', [join(SCRIPTS, 'stop-postgres.sh'), dir, ...flags], { stdio: 'ignore' });
  const url = start().trim().split('\n').pop()!;
  return {
    url,
    crash: () => stopWith('--immediate'),
    restart: () => void start(),
    stop: () => stopWith('--remove'),
  };
}

export default function setup(project: TestProject): (() => void) | void {
  const given = process.env.HOOKRELAY_TEST_PG_URL;
  if (given) {
    project.provide('pgUrl', given);
    return;
  }
  const server = startThrowawayPostgres();
  project.provide('pgUrl', server.url);
  return server.stop;
}
