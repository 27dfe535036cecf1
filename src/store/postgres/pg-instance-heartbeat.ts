/**
 * Liveness of the instances that claim relay jobs. An instance that claims writes a row in
 * `relay_instances` and renews it every third of its time to live; a job claimed by an instance
 * whose row is current is never taken over, however long its hand-off takes. Each beat also renews
 * the `leased_until` of the instance's claims, so a build that knows only leases (a rolling upgrade
 * from before schema 7) honours them too. An instance killed with `kill -9` stops renewing: its
 * claims can be taken once its row and their leases have both passed, within one time to live of
 * the kill.
 *
 * Both times are the database server's clock (`clock_timestamp()`), never an instance's, so a skew
 * between hosts moves nothing.
 */
import type pg from 'pg';

export interface InstanceHeartbeat {
  /**
   * Before a claim: writes the row if it was never written, or beats again when the last beat landed
   * more than two thirds of the time to live ago; rejects when it cannot (then nothing is claimed).
   * Otherwise waits for a beat in flight, if any.
   */
  ensure(): Promise<void>;
  /** Stops renewing, deletes the row and gives back this instance's claims (a clean stop hands over at once). */
  stop(): Promise<void>;
}

/** SQL, in milliseconds, for the database server's clock now. */
export const DB_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * The one rule for "this job may be claimed by $me": nobody holds it; or $me holds it and its
 * worker no longer does (it is not in the worker's skip list, checked by the caller's query); or
 * its holder's row has lapsed and so has the claim's own lease (set at the claim to one time to
 * live, so a claim made by a build without heartbeats is honoured too).
 */
export const claimableBy = (me: string, alias: string) => `(${alias}.leased_by IS NULL OR ${alias}.leased_by = ${me}
  OR (coalesce(${alias}.leased_until, 0) <= ${DB_NOW_MS}
    AND NOT EXISTS (SELECT 1 FROM relay_instances i WHERE i.id = ${alias}.leased_by AND i.alive_until > ${DB_NOW_MS})))`;

export function startInstanceHeartbeat(pool: pg.Pool, instanceId: string, ttlMs: number, onError: (err: unknown) => void): InstanceHeartbeat {
  let started: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  // When the last beat landed, by this process's monotonic clock: a claim needs a row that has not lapsed.
  let beatAt = -Infinity;
  // The row, and the leases of this instance's claims with it: a build before heartbeats (during a
  // rolling upgrade) goes by the lease alone, so a live claim must never let it run out.
  // One beat at a time: a tick or a claim while one is in flight waits for that one.
  let inFlight: Promise<void> | null = null;
  const beat = (): Promise<void> => (inFlight ??= beatOnce().finally(() => (inFlight = null)));
  const beatOnce = async () => {
    const at = performance.now();
    await pool.query(
      `WITH alive AS (
         INSERT INTO relay_instances (id, alive_until) VALUES ($1, ${DB_NOW_MS} + $2::bigint)
         ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until
       )
       UPDATE relay_jobs SET leased_until = ${DB_NOW_MS} + $2::bigint WHERE leased_by = $1 AND state = 'pending'`,
      [instanceId, ttlMs],
    );
    beatAt = Math.max(beatAt, at);
  };

  return {
    ensure() {
      if (stopped) return Promise.resolve();
      // Beats failed for a while (the server unreachable, the pool starved): others may take this
      // instance's jobs soon, so it beats again before it claims more, and claims nothing if it cannot.
      if (started && performance.now() - beatAt > (ttlMs * 2) / 3) return beat();
      // A beat in flight holds its claims' rows locked, and a claim skips locked rows: a claim made
      // meanwhile would pass over this instance's own jobs that its worker let go. It waits for it.
      // (Its failure is the timer's to report: the last beat is recent, so the claim goes on.)
      if (started && inFlight) return inFlight.catch(() => {});
      started ??= beat().then(() => {
        if (stopped) return;
        // A missed beat (the server unreachable a moment) is retried at the next; three fit in one time to live.
        timer = setInterval(() => void beat().catch(onError), Math.max(10, Math.floor(ttlMs / 3)));
        timer.unref();
        // Rows of instances gone for a day: nobody will renew them.
        void pool.query(`DELETE FROM relay_instances WHERE alive_until < ${DB_NOW_MS} - 86400000`).catch(onError);
      });
      // A failed first beat is tried again by the next claim.
      return started.catch((err: unknown) => {
        started = null;
        throw err;
      });
    },

    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (!started) return;
      await started.catch(() => {});
      await pool.query("UPDATE relay_jobs SET leased_until = NULL, leased_by = NULL WHERE leased_by = $1 AND state = 'pending'", [instanceId]).catch(onError);
      await pool.query('DELETE FROM relay_instances WHERE id = $1', [instanceId]).catch(onError);
    },
  };
}
