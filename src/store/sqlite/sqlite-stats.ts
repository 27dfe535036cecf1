/** Counts for `db stats`, read on a read-only connection (cheap queries: no full reads of bodies). */
import type Database from 'better-sqlite3';
import type { AttemptOutcome, StoreStats } from '../store.js';

export function readStoreStats(db: Database.Database): StoreStats {
  const one = <T>(sql: string) => db.prepare(sql).get() as T | undefined;
  const attempts: Record<AttemptOutcome, number> = { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 };
  for (const row of db.prepare('SELECT outcome, count(*) AS n FROM attempts GROUP BY outcome').all() as Array<{ outcome: AttemptOutcome; n: number }>) {
    if (row.outcome in attempts) attempts[row.outcome] = row.n;
  }
  const relayJobs = { pending: 0, held: 0, done: 0, dead: 0 };
  for (const row of db.prepare('SELECT state, count(*) AS n FROM relay_jobs GROUP BY state').all() as Array<{ state: keyof typeof relayJobs; n: number }>) {
    if (row.state in relayJobs) relayJobs[row.state] = row.n;
  }
  // Arrival (seq) order is received-time order: the ends of the primary key are the oldest and newest.
  return {
    deliveries: one<{ n: number }>('SELECT count(*) AS n FROM deliveries')?.n ?? 0,
    attempts,
    relayJobs,
    oldestReceivedAt: one<{ at: number }>('SELECT received_at AS at FROM deliveries ORDER BY seq LIMIT 1')?.at ?? null,
    newestReceivedAt: one<{ at: number }>('SELECT received_at AS at FROM deliveries ORDER BY seq DESC LIMIT 1')?.at ?? null,
  };
}
