/**
 * The commit-order horizon of the deliveries sequence: the largest seq S such that no transaction
 * can still commit a delivery with a seq at or below S. The bridge reads only up to it, so a
 * subscriber's cursor never passes a delivery that another instance (or another connection of
 * this pool) drew a smaller seq for and commits later; an ordered relay claims only up to it, so
 * a key's next job never goes out before an earlier one committed later (pg-store.ts dueRelayJobs).
 *
 * Why it holds: every accepting transaction takes its transaction id before it draws a seq
 * (acceptFresh in pg-queries.ts, sent by pg-accept-group.ts: a filter of no column, checked before
 * the first row is formed; hookrelay_accept_group_v2, migration 8 in pg-schema.ts, and v1 before it:
 * their first statement). A mark is a pair (n, x): n, the sequence's last value, read first; then
 * x, a fresh transaction id. A transaction holding a seq <= n drew it before n was read, so it had
 * its id before x was assigned: its id is below x. Once the oldest transaction still running
 * (pg_snapshot_xmin) is above x, every one of them has ended, and seqs up to n are final.
 * Checked in test/store/postgres-bridge.test.ts with a transaction held open between its insert
 * and its commit.
 */
import type pg from 'pg';

interface Mark {
  n: number;
  x: bigint;
}

/** Marks kept while old transactions run; past this the oldest are dropped (that only delays settling). */
const MAX_MARKS = 256;

export interface SettledHorizon {
  /**
   * Takes a new mark, settles what can be settled, and returns the horizon. While transactions
   * that may hold a smaller seq are running, it looks again every `pollMs` for up to `waitMs`:
   * commits take milliseconds, so a read rarely returns short.
   */
  settledSeq(): Promise<number>;
}

export function createSettledHorizon(pool: pg.Pool, options: { waitMs?: number; pollMs?: number } = {}): SettledHorizon {
  const waitMs = options.waitMs ?? 250;
  const pollMs = options.pollMs ?? 5;
  let settled = 0;
  let marks: Mark[] = [];

  const one = async <T>(sql: string): Promise<T> => (await pool.query(sql)).rows[0] as T;

  async function mark(): Promise<void> {
    const { n } = await one<{ n: string }>("SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('deliveries', 'seq')::regclass), 0)::text AS n");
    const { x } = await one<{ x: string }>('SELECT pg_current_xact_id()::text AS x');
    marks.push({ n: Number(n), x: BigInt(x) });
    if (marks.length > MAX_MARKS) marks = marks.slice(-MAX_MARKS);
  }

  async function settle(): Promise<void> {
    const { xmin } = await one<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
    const oldestRunning = BigInt(xmin);
    const open: Mark[] = [];
    for (const m of marks) {
      if (m.x < oldestRunning) settled = Math.max(settled, m.n);
      else open.push(m);
    }
    marks = open;
  }

  return {
    async settledSeq() {
      const deadline = Date.now() + waitMs;
      await mark();
      for (;;) {
        await settle();
        if (marks.length === 0 || Date.now() >= deadline) return settled;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}
