/**
 * Retention on PostgreSQL in batches (src/store/postgres/pg-prune.ts): a prune in many small
 * batches removes exactly what one pass over everything removes, counts the same (dry or not),
 * and a delivery re-seen between two batches stays.
 */
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPool } from '../../src/store/postgres/pg-connection.js';
import { prunePostgres, type PgPruneOptions } from '../../src/store/postgres/pg-prune.js';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/pg-store.js';
import type { PruneResult } from '../../src/store/store.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const server = useTestPostgres();
const DAY = 86_400_000;
const T = 1_763_719_200_000;
const BEFORE = T - 30 * DAY;
const TARGET = 'http://127.0.0.1:1/hook';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function open(): Promise<{ store: PostgresStore; pool: pg.Pool }> {
  const url = await server.freshSchema();
  const store = await createPostgresStore(url, { outbox: true });
  const pool = createPool(url, { max: 4 });
  closers.push(() => store.close(), () => pool.end());
  return { store, pool };
}

const prune = (pool: pg.Pool, options: PgPruneOptions = {}): Promise<PruneResult> => prunePostgres(pool, (work) => work(), BEFORE, options);

/**
 * The same mix in every schema, under the same ids: old deliveries whose relay is done, dead,
 * pending or held, old ones re-seen within the window, recent ones, an old one stored after the
 * recent ones (seq order is not time order across instances), and refused attempts old and new,
 * claiming a delivery that goes, one that stays, or none.
 */
async function seed({ store, pool }: { store: PostgresStore; pool: pg.Pool }): Promise<Map<string, number>> {
  const seqs = new Map<string, number>();
  const accept = async (id: string, receivedAt: number) => {
    const d = makeDelivery({ id, receivedAt });
    const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt, finishedAt: receivedAt + 1 }));
    seqs.set(id, deliverySeq);
    return d;
  };
  const relay = (id: string, state: 'done' | 'dead', at: number) =>
    store.recordRelay({ deliverySeq: seqs.get(id)!, startedAt: at, finishedAt: at + 1, status: state === 'done' ? 204 : 500, error: null, replay: false, target: TARGET, try: 1, next: { state } });
  for (let i = 0; i < 25; i++) {
    const id = `old-${String(i).padStart(2, '0')}`;
    const d = await accept(id, T - 40 * DAY + i);
    const kind = i % 5;
    if (kind === 0 || kind === 3) await relay(id, 'done', T - 40 * DAY + 10);
    if (kind === 1) {
      await relay(id, 'dead', T - 40 * DAY + 10);
      await store.accept(d, attemptFor(d, { receivedAt: T - 39 * DAY, attemptHeader: 2 })); // a duplicate, still old
    }
    if (kind === 4) {
      await relay(id, 'done', T - 40 * DAY + 10);
      await store.accept(d, attemptFor(d, { receivedAt: T - DAY, attemptHeader: 2 })); // re-seen within the window
    }
    // kind 2: relay still owed: pending, or held (for a target this instance does not forward to).
    if (kind === 2 && i % 2 === 1) await pool.query("UPDATE relay_jobs SET state = 'held' WHERE delivery_seq = $1", [seqs.get(id)]);
  }
  for (let i = 0; i < 5; i++) await accept(`new-${i}`, T - DAY + i);
  await accept('old-late', T - 35 * DAY); // old, but stored after the recent ones
  await relay('old-late', 'done', T - 35 * DAY + 5);
  const refused = (id: string | null, receivedAt: number) =>
    store.recordAttempt(attemptFor(id === null ? null : makeDelivery({ id, receivedAt }), { deliveryId: id, outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt }));
  await refused('old-00', T - 41 * DAY); // claims a delivery that goes: goes
  await refused('old-02', T - 41 * DAY); // claims one whose relay is pending: stays
  await refused('old-04', T - 41 * DAY); // claims one re-seen lately: stays
  await refused('ghost', T - 40 * DAY); // claims nothing stored: goes by its age
  await refused('ghost', T - DAY); // recent: stays
  await refused(null, T - 40 * DAY);
  return seqs;
}

/** What is left, comparable across schemas (seqs differ by nothing here, but ids say more). */
async function leftOf(pool: pg.Pool) {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    deliveries: (await q('SELECT id FROM deliveries ORDER BY id')).map((r) => r.id as string),
    attempts: await q('SELECT delivery_id, outcome, received_at FROM attempts ORDER BY delivery_id, received_at, outcome'),
    jobs: await q('SELECT d.id, j.state FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq ORDER BY d.id'),
    orphanJobs: (await q('SELECT count(*) AS n FROM relay_jobs j WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = j.delivery_seq)'))[0].n,
    relayAttempts: await q('SELECT d.id, r.status FROM relay_attempts r JOIN deliveries d ON d.seq = r.delivery_seq ORDER BY d.id'),
    orphanRelayAttempts: (await q('SELECT count(*) AS n FROM relay_attempts r WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.seq = r.delivery_seq)'))[0].n,
  };
}

describe('postgres prune in batches', () => {
  it.each([
    ['everything', undefined],
    ['below a bridge cursor', 'old-14'],
  ])('removes and counts exactly what one pass removes (%s)', async (_name, cursorId) => {
    const one = await open();
    const batched = await open();
    const seqs = await seed(one);
    expect(await seed(batched)).toEqual(seqs);
    const keepAfterSeq = cursorId === undefined ? undefined : seqs.get(cursorId)!;

    const dryOne = await prune(one.pool, { dryRun: true, keepAfterSeq, batchSize: 1_000_000 });
    const dryBatched = await prune(batched.pool, { dryRun: true, keepAfterSeq, batchSize: 3 });
    expect(dryBatched).toEqual(dryOne);
    const before = await leftOf(batched.pool);

    const batches: PruneResult[] = [];
    const realOne = await prune(one.pool, { keepAfterSeq, batchSize: 1_000_000 });
    const realBatched = await prune(batched.pool, { keepAfterSeq, batchSize: 3, onBatch: (sofar) => void batches.push(sofar) });
    expect(realBatched).toEqual(realOne);
    expect(realBatched).toEqual({ ...dryBatched, dryRun: false });
    expect(batches.length).toBeGreaterThan(5);
    // Through the store (its default batch size), on a third copy: the same.
    const third = await open();
    await seed(third);
    expect(await third.store.prune!(BEFORE, { keepAfterSeq })).toEqual(realOne);

    const left = await leftOf(batched.pool);
    expect(left).toEqual(await leftOf(one.pool));
    expect(left).toEqual(await leftOf(third.pool));
    expect(left.deliveries.length).toBeLessThan(before.deliveries.length);
    expect(left.orphanJobs).toBe(0);
    expect(left.orphanRelayAttempts).toBe(0);
    if (cursorId === undefined) {
      // 25 old: 5 pending stay, 5 re-seen stay, 15 go; and the late old one.
      expect(realOne).toEqual({ before: BEFORE, deliveries: 16, attempts: 16 + 5 + 3, relayAttempts: 16, keptPending: 5, dryRun: false });
      expect(left.deliveries).toEqual([...seqs.keys()].filter((id) => id.startsWith('new-') || /-(02|04|07|09|12|14|17|19|22|24)$/.test(id)).sort());
      expect(left.attempts.filter((a) => a.outcome === 'rejected').map((a) => a.delivery_id)).toEqual(['ghost', 'old-02', 'old-04']);
    }
  });

  it('keeps a fanned-out delivery while any of its jobs is owed, in batches as in one pass, and removes one with all its jobs', async () => {
    const app = 'http://127.0.0.1:1/app';
    const audit = 'http://127.0.0.1:2/audit';
    const copies = [];
    for (let c = 0; c < 2; c++) {
      const url = await server.freshSchema();
      const store = await createPostgresStore(url, { outbox: { to: app, routes: [{ glob: '*', urls: [audit], also: true }] } });
      const pool = createPool(url, { max: 4 });
      closers.push(() => store.close(), () => pool.end());
      // Each old delivery's two jobs: both finished (it goes), or one of them still owed (it stays).
      for (let i = 0; i < 12; i++) {
        const d = makeDelivery({ id: `fan-${String(i).padStart(2, '0')}`, receivedAt: T - 40 * DAY + i });
        const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt, finishedAt: d.receivedAt + 1 }));
        const finish = (target: string, state: 'done' | 'dead') =>
          store.recordRelay({ deliverySeq, startedAt: d.receivedAt, finishedAt: d.receivedAt + 1, status: state === 'done' ? 204 : 500, error: null, replay: false, target, try: 1, next: { state } });
        if (i % 3 !== 2) await finish(app, i % 2 === 0 ? 'done' : 'dead');
        if (i % 3 !== 1) await finish(audit, 'done');
        if (i % 3 === 1 && i % 2 === 1) await pool.query("UPDATE relay_jobs SET state = 'held' WHERE delivery_seq = $1 AND target = $2", [deliverySeq, audit]);
      }
      copies.push(pool);
    }
    const [one, batched] = copies as [pg.Pool, pg.Pool];
    expect(await prune(batched, { dryRun: true, batchSize: 5 })).toEqual(await prune(one, { dryRun: true, batchSize: 1_000_000 }));
    const result = await prune(batched, { batchSize: 5 });
    expect(await prune(one, { batchSize: 1_000_000 })).toEqual(result);
    // i % 3 === 0: both finished, goes; 1: its audit job owed (pending or held), stays; 2: its app job pending, stays.
    expect(result).toEqual({ before: BEFORE, deliveries: 4, attempts: 4, relayAttempts: 8, keptPending: 8, dryRun: false });
    const left = await leftOf(batched);
    expect(left).toEqual(await leftOf(one));
    expect(left.deliveries).toEqual(['fan-01', 'fan-02', 'fan-04', 'fan-05', 'fan-07', 'fan-08', 'fan-10', 'fan-11']);
    // A kept delivery keeps both its jobs, finished or not; a removed one leaves none behind.
    expect(left.jobs).toHaveLength(16);
    expect(left.orphanJobs).toBe(0);
    expect(left.orphanRelayAttempts).toBe(0);
  });

  it('keeps a delivery re-seen between two batches, and removes the rest', async () => {
    const { store, pool } = await open();
    const old = [];
    for (let i = 0; i < 12; i++) {
      const d = makeDelivery({ id: `old-${String(i).padStart(2, '0')}`, receivedAt: T - 40 * DAY + i });
      const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
      await store.recordRelay({ deliverySeq, startedAt: T - 40 * DAY, finishedAt: T - 40 * DAY + 1, status: 200, error: null, replay: false, target: TARGET, try: 1, next: { state: 'done' } });
      old.push(d);
    }
    const reseen = old[9]!;
    let copies = 0;
    const result = await prune(pool, {
      batchSize: 2,
      onBatch: async (sofar) => {
        // After the first batch, before the walk reaches it: a copy arrives at another instance.
        if (copies === 0 && sofar.deliveries > 0) {
          copies++;
          expect((await store.accept(reseen, attemptFor(reseen, { receivedAt: T, attemptHeader: 2 }))).outcome).toBe('duplicate');
        }
      },
    });
    expect(copies).toBe(1);
    expect(result).toMatchObject({ deliveries: 11, attempts: 11, relayAttempts: 11, keptPending: 0 });
    expect((await store.getDelivery(reseen.id))?.duplicateCount).toBe(1);
    expect((await store.listAttempts({ deliveryId: reseen.id, limit: 10 })).map((a) => a.outcome)).toEqual(['duplicate', 'accepted']);
    expect((await store.relayHistory(reseen.id)).attempts).toHaveLength(1);
    expect((await store.stats!()).deliveries).toBe(1);
    // And once it is old again, the next prune takes it.
    expect(await prunePostgres(pool, (work) => work(), T + 1, { batchSize: 2 })).toMatchObject({ deliveries: 1, attempts: 2, relayAttempts: 1 });
  });

  it('stops between two batches when its signal aborts, and the next prune carries on', async () => {
    const { store, pool } = await open();
    for (let i = 0; i < 10; i++) {
      const d = makeDelivery({ id: `old-${i}`, receivedAt: T - 40 * DAY + i });
      const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
      await store.recordRelay({ deliverySeq, startedAt: T - 40 * DAY, finishedAt: T - 40 * DAY + 1, status: 200, error: null, replay: false, target: TARGET, try: 1, next: { state: 'done' } });
    }
    const stop = new AbortController();
    const first = await prune(pool, { batchSize: 2, pauseFactor: 1_000_000, onBatch: () => stop.abort(), signal: stop.signal });
    expect(first.deliveries).toBe(2);
    expect((await store.stats!()).deliveries).toBe(8);
    expect((await prune(pool, { batchSize: 2, pauseFactor: 0 })).deliveries).toBe(8);
  });

  it('keeps a delivery whose copy commits while its batch waits on it', async () => {
    const { store, pool } = await open();
    const d = makeDelivery({ id: 'racing', receivedAt: T - 40 * DAY });
    await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
    await store.recordRelay({ deliverySeq: (await store.getDelivery(d.id))!.seq, startedAt: T - 40 * DAY, finishedAt: T - 40 * DAY + 1, status: 200, error: null, replay: false, target: TARGET, try: 1, next: { state: 'done' } });
    // Another transaction re-sees it and holds its row; the prune's batch, started meanwhile, waits
    // for that commit and then reads the new last_attempt_at.
    const other = await pool.connect();
    try {
      const otherPid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await other.query('BEGIN');
      await other.query('UPDATE deliveries SET last_attempt_at = $1, duplicate_count = duplicate_count + 1 WHERE id = $2', [T, d.id]);
      const pruning = prune(pool, { batchSize: 10 });
      // The batch waits on the row lock: asked of the server, not guessed with a timer.
      const blocked = async () => (await pool.query('SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [otherPid])).rows[0].n > 0;
      while (!(await blocked()));
      await other.query('COMMIT');
      expect(await pruning).toMatchObject({ deliveries: 0, attempts: 0, keptPending: 0 });
    } finally {
      other.release();
    }
    expect((await store.getDelivery(d.id))?.duplicateCount).toBe(1);
  });
});
