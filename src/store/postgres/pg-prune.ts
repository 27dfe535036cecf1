/**
 * Retention on PostgreSQL, in bounded batches (issue 38, item 5). One statement for the whole
 * prune was one long transaction: a million old rows deleted and locked while instances accept,
 * past the pool's query timeout, and every copy of an old id waiting for all of it. Instead the
 * deliveries are walked in seq order, `batchSize` at a time, each batch one short implicit
 * transaction (pg-queries.ts: pruneDeliveries); then the refused attempts the same way
 * (pruneRefused). After each batch the prune waits five times as long as the batch took, so it
 * takes about a sixth of one database backend's time. Measured (docs/benchmarks.md, "Retention
 * during intake": BENCH_ONLY=prune, 1,000,000 old deliveries, the database server sharing a core
 * with the load generator): a batch costs the server ~19–33 µs of CPU a delivery (4 rows)
 * whatever its size (500–5,000), so what the intake loses is the share of that core the prune
 * takes. Waiting as long as each batch took (1×), the intake ran at 0.70× its rate without the
 * prune (12,000 deliveries pruned a second); waiting 5×, at 0.79–1.02× (medians of five runs on a
 * machine others loaded; ~6–10% of the core by CPU accounting), pruning 2,600–3,700 a second: a
 * million in 5–6 minutes. The whole million as one batch (one transaction) took 131 s beside the
 * intake, far past the pool's 15 s query timeout.
 *
 * Why not time partitions dropped whole (Convoy's way): the rules do not follow time. Dedupe is
 * `ON CONFLICT (id)`, and a unique constraint on a partitioned table must include the partition
 * key, so ids could no longer be unique across partitions; a delivery stays while it is re-seen
 * (last_attempt_at moves) or while its relay is owed, so no partition is ever wholly droppable
 * without moving its survivors first (the same deletes, plus inserts).
 *
 * The walk reads every delivery once (there is no index on last_attempt_at), as the single
 * statement's scan did, but at most `batchSize` rows a statement.
 */
import type pg from 'pg';
import type { PruneOptions, PruneResult } from '../store.js';
import { named } from './pg-queries.js';

/** Deliveries looked at per transaction: ~40–70 ms of the server's time each, one commit. */
export const PG_PRUNE_BATCH = 2_000;
/** The pause after a batch, as a multiple of the time it took (see above). */
export const PG_PRUNE_PAUSE = 5;

export interface PgPruneOptions extends PruneOptions {
  /** Deliveries (then refused attempts) looked at per transaction (default PG_PRUNE_BATCH). */
  batchSize?: number;
  /**
   * The pause after each batch, as a multiple of the time it took (default PG_PRUNE_PAUSE). 0: no
   * pause (still one transaction a batch), for a prune with no intake beside it.
   */
  pauseFactor?: number;
}

interface BatchRow {
  last: number | null;
  looked: number;
  deliveries?: number;
  attempts: number;
  relay_attempts?: number;
  kept_pending?: number;
}

/** Waits `ms`, or less when the signal aborts meanwhile. */
function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Prunes through `run` (the store's write or read wrapper around one query), batch by batch, and
 * returns the totals; a dry run counts with the same walk and changes nothing. Rejects with the
 * first batch that fails: the batches before it stay committed, which is harmless (each removed
 * only what the rules remove) and the next prune carries on.
 */
export async function prunePostgres(
  pool: Pick<pg.Pool, 'query'>,
  run: <T>(work: () => Promise<T>) => Promise<T>,
  before: number,
  options: PgPruneOptions = {},
): Promise<PruneResult> {
  const { dryRun = false, keepAfterSeq, batchSize = PG_PRUNE_BATCH, pauseFactor = PG_PRUNE_PAUSE, onBatch, signal } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const total: PruneResult = { before, deliveries: 0, attempts: 0, relayAttempts: 0, keptPending: 0, dryRun };
  const keep = keepAfterSeq ?? null;
  const phases = [
    (after: number) => named(dryRun ? 'pruneDeliveriesDry' : 'pruneDeliveries', [after, before, batchSize, keep]),
    (after: number) => named('pruneRefused', [after, before, batchSize, keep, dryRun]),
  ];
  for (const statement of phases) {
    for (let after = 0; !signal?.aborted; ) {
      const started = performance.now();
      const { rows } = await run(() => pool.query<BatchRow>(statement(after)));
      const row = rows[0]!;
      total.deliveries += row.deliveries ?? 0;
      total.attempts += row.attempts;
      total.relayAttempts += row.relay_attempts ?? 0;
      total.keptPending += row.kept_pending ?? 0;
      if (onBatch) await onBatch({ ...total });
      if (row.last === null || row.looked < batchSize) break;
      after = row.last;
      const pause = (performance.now() - started) * pauseFactor;
      if (pause >= 1) await pauseFor(Math.min(pause, 1_000), signal);
    }
  }
  return total;
}
