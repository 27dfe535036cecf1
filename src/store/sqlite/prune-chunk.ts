/**
 * Retention in the writer thread, one bounded chunk per call so that a large prune never holds
 * the write lock for long: intake commits run between chunks. Deliveries are walked in arrival
 * (seq) order, which is also received-time order, so a walk stops at the first one received
 * after the cutoff and never reads the rest of the table.
 */
import type Database from 'better-sqlite3';

export interface PruneChunk {
  /** True when this phase has nothing more to look at. */
  done: boolean;
  /** The seq to continue after. */
  after: number;
  deliveries: number;
  attempts: number;
  relayAttempts: number;
  keptPending: number;
}

/** Phase 1 walks deliveries; phase 2 walks attempts that stored nothing (rejected, faulted, unavailable). */
export type PrunePhase = 1 | 2;

/**
 * `raiseSeqFloor` records a removed seq so that it is never handed out again (schema.ts,
 * migration 3). A delivery above `keepAfterSeq` (a bridge cursor) stays, and, since deliveries
 * are walked in seq order, ends the walk.
 */
export function createPruner(db: Database.Database, raiseSeqFloor: Database.Statement<[number]>) {
  // Owed: any of its jobs (one per target) is pending or held (isOwed in store.ts).
  const owedColumn = "EXISTS (SELECT 1 FROM relay_jobs j WHERE j.delivery_seq = d.seq AND j.state IN ('pending', 'held')) AS owed";
  const walkDeliveries = db.prepare<[number, number], { seq: number; receivedAt: number; owed: number }>(
    `SELECT d.seq AS seq, d.received_at AS receivedAt, ${owedColumn} FROM deliveries d WHERE d.seq > ? ORDER BY d.seq LIMIT ?`,
  );
  // last_attempt_at sits after the body in the row: read only for the candidates.
  const lastAttemptAt = db.prepare<[number], { at: number }>('SELECT last_attempt_at AS at FROM deliveries WHERE seq = ?');
  const countAttempts = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM attempts WHERE delivery_seq = ?');
  const countRelayAttempts = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM relay_attempts WHERE delivery_seq = ?');
  const removeDelivery = [
    'DELETE FROM attempts WHERE delivery_seq = ?',
    'DELETE FROM relay_attempts WHERE delivery_seq = ?',
    'DELETE FROM relay_jobs WHERE delivery_seq = ?',
    'DELETE FROM deliveries WHERE seq = ?',
  ].map((sql) => db.prepare<[number]>(sql));
  const walkAttempts = db.prepare<[number, number], { seq: number; receivedAt: number; linked: number; key: number | null; id: string | null }>(
    `SELECT seq, received_at AS receivedAt, delivery_seq IS NOT NULL AS linked, delivery_key AS key, delivery_id AS id
     FROM attempts WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  const claimed = db.prepare<[number, string], { seq: number; receivedAt: number; owed: number }>(
    `SELECT d.seq AS seq, d.received_at AS receivedAt, ${owedColumn} FROM deliveries d WHERE d.id_key = ? AND d.id = ?`,
  );
  const removeAttempt = db.prepare<[number]>('DELETE FROM attempts WHERE seq = ?');

  /** Whether a stored delivery survives a prune at `before` (seen since, or its relay is owed: pending or held). */
  const stays = (seq: number, owed: boolean, before: number, keepAfterSeq: number | null) =>
    owed || (keepAfterSeq !== null && seq > keepAfterSeq) || (lastAttemptAt.get(seq)?.at ?? 0) >= before;

  return function pruneChunk(before: number, phase: PrunePhase, after: number, limit: number, dryRun: boolean, keepAfterSeq: number | null): PruneChunk {
    const out: PruneChunk = { done: false, after, deliveries: 0, attempts: 0, relayAttempts: 0, keptPending: 0 };
    if (phase === 1) {
      const rows = walkDeliveries.all(after, limit);
      for (const row of rows) {
        if (row.receivedAt >= before || (keepAfterSeq !== null && row.seq > keepAfterSeq)) return { ...out, done: true };
        out.after = row.seq;
        if ((lastAttemptAt.get(row.seq)?.at ?? 0) >= before) continue;
        if (row.owed === 1) {
          out.keptPending++;
          continue;
        }
        out.deliveries++;
        out.attempts += countAttempts.get(row.seq)!.n;
        out.relayAttempts += countRelayAttempts.get(row.seq)!.n;
        if (!dryRun) {
          raiseSeqFloor.run(row.seq);
          for (const statement of removeDelivery) statement.run(row.seq);
        }
      }
      return { ...out, done: rows.length < limit };
    }
    const rows = walkAttempts.all(after, limit);
    for (const row of rows) {
      if (row.receivedAt >= before) return { ...out, done: true };
      out.after = row.seq;
      if (row.linked) continue;
      // A refused attempt that claims a delivery still stored stays with it.
      const owner = row.key !== null && row.id !== null ? claimed.get(row.key, row.id) : undefined;
      if (owner && stays(owner.seq, owner.owed === 1, before, keepAfterSeq)) continue;
      out.attempts++;
      if (!dryRun) removeAttempt.run(row.seq);
    }
    return { ...out, done: rows.length < limit };
  };
}
