/**
 * Scenario 9 (`BENCH_ONLY=prune`): intake while retention prunes a large backlog on PostgreSQL
 * (issue 38, item 5: "intake during a large prune ≥ 0.9× intake without it").
 *
 * One hookrelay `listen --store postgres://… --retain off` on core 0, the database server on
 * core 1 with the load generator, as scenario 7. The store is seeded in bulk with
 * BENCH_PRUNE_DELIVERIES (1,000,000) deliveries received 400 days ago, each with its accepted
 * attempt, its relay job (done) and its relay try: four rows each. One prune at a 30-day cut then
 * runs beside the intake, as another instance's retention (or `db prune`) would: the store's own
 * batched prune (src/store/postgres/pg-prune.ts, its default batch and pause unless
 * BENCH_PRUNE_BATCH / BENCH_PRUNE_PAUSE say otherwise), on a pool of its own. Rounds alternate:
 * intake with the prune parked between two batches (A), then intake with it running (B); the
 * target is the median of the rounds' B/A. A round B the prune did not run through (it finished)
 * is reported and left out of the ratio; BENCH_PRUNE_BATCH=2000000 BENCH_PRUNE_PAUSE=0 makes the
 * prune one transaction, for comparison (then only the first round B has it). The prune's own
 * pace is what it removed in rounds B over their time; it is then left where it is (the database
 * is dropped), or, with BENCH_PRUNE_FINISH=1, run to its end, its duration counting only the time
 * it was let run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { createPool } from '../src/store/postgres/pg-connection.js';
import { PG_PRUNE_BATCH, PG_PRUNE_PAUSE, prunePostgres } from '../src/store/postgres/pg-prune.js';
import { createPostgresStore } from '../src/store/postgres/pg-store.js';
import type { PruneResult } from '../src/store/store.js';
import { coreTicks, freePort, listenArgs, load, median, pinPostgres, postgresCpuMs, ROOT, startServer, type Load, type Server } from './lib.js';
import { seedPostgresDeliveries } from './seed-postgres.js';

export interface PruneBenchRow {
  measure: string;
  result: string;
  target: string;
  met: boolean | null;
}

export interface PruneBenchSettings {
  rounds: number;
  roundMs: number;
  connections: number;
  say: (line: string) => void;
}

const DAY = 86_400_000;
const fmt = (n: number, digits = 0) => n.toFixed(digits);
/** Run the prune to its end after the rounds (minutes more at its pace); by default it is left where it is. */
const FINISH = process.env.BENCH_PRUNE_FINISH === '1';

type Measured = Load & { dbUs: number | null; core1Busy: number | null };

async function measure(url: string, ms: number, connections: number, dataDir: string): Promise<Measured> {
  const db = postgresCpuMs(dataDir);
  const core1 = coreTicks(1);
  const l = await load(url, ms, connections);
  const core1After = coreTicks(1);
  return {
    ...l,
    dbUs: l.ok === 0 ? null : ((postgresCpuMs(dataDir) - db) * 1000) / l.ok,
    core1Busy: core1After.total > core1.total ? (core1After.busy - core1.busy) / (core1After.total - core1.total) : null,
  };
}

/** Thrown from the prune's onBatch to end it where it is parked (the database is dropped after). */
class Abandoned extends Error {}

/** A prune that runs only while let: it parks between two batches when told to stop. */
function gatedPrune(pool: pg.Pool, before: number, batchSize: number, pauseFactor: number) {
  let open = false;
  let abandoned = false;
  let release: (() => void) | null = null;
  const parkedWaiters: Array<() => void> = [];
  let parked = true;
  let activeSince = 0;
  let activeMs = 0;
  let batches = 0;
  let sofar: PruneResult = { before, deliveries: 0, attempts: 0, relayAttempts: 0, keptPending: 0, dryRun: false };
  let finished = false;
  const park = async () => {
    parked = true;
    for (const wake of parkedWaiters.splice(0)) wake();
    await new Promise<void>((resolve) => (release = resolve));
    if (abandoned) throw new Abandoned();
  };
  const run = async (): Promise<PruneResult | null> => {
    try {
      await park(); // starts parked
      const result = await prunePostgres(pool, (work) => work(), before, {
        batchSize,
        pauseFactor,
        onBatch: async (now) => {
          batches++;
          sofar = now;
          if (open) return;
          activeMs += performance.now() - activeSince;
          await park();
        },
      });
      activeMs += performance.now() - activeSince;
      return result;
    } catch (err) {
      if (err instanceof Abandoned) return null;
      throw err;
    } finally {
      finished = true;
      parked = true;
      for (const wake of parkedWaiters.splice(0)) wake();
    }
  };
  const done = run();
  done.catch(() => {}); // awaited later (a failure is reported there), not left unhandled meanwhile
  const wakeUp = () => {
    const r = release;
    release = null;
    r?.();
  };
  return {
    done,
    go() {
      if (finished) return;
      open = true;
      parked = false;
      activeSince = performance.now();
      wakeUp();
    },
    /** Stops it at its next batch's end; resolves once it is parked (or finished). */
    async stop(): Promise<void> {
      open = false;
      if (parked) return;
      await new Promise<void>((resolve) => parkedWaiters.push(resolve));
    },
    /** Ends it where it is parked (after stop()). */
    abandon(): Promise<PruneResult | null> {
      abandoned = true;
      wakeUp();
      return done;
    },
    state: () => ({ finished, activeMs, batches, sofar }),
  };
}

/** Scenario 9. Returns its table rows; every round is said as it is measured. */
export async function pruneDuringIntake(work: string, settings: PruneBenchSettings): Promise<PruneBenchRow[]> {
  const { connections, say } = settings;
  // A 10% effect under this machine's drift wants more and shorter pairs than the other scenarios'
  // rounds: 9 of 4 s unless told (BENCH_PRUNE_ROUNDS, BENCH_PRUNE_ROUND_MS).
  const rounds = Number(process.env.BENCH_PRUNE_ROUNDS ?? Math.max(settings.rounds, 9));
  const roundMs = Number(process.env.BENCH_PRUNE_ROUND_MS ?? Math.min(settings.roundMs, 4000));
  const count = Number(process.env.BENCH_PRUNE_DELIVERIES ?? 1_000_000);
  const batchSize = Number(process.env.BENCH_PRUNE_BATCH ?? PG_PRUNE_BATCH);
  const pauseFactor = Number(process.env.BENCH_PRUNE_PAUSE ?? PG_PRUNE_PAUSE);
  say(`\n9. Retention during intake (PostgreSQL): intake while one prune removes ${count.toLocaleString('en')} old deliveries (4 rows each), against intake with the prune parked, in ${rounds} alternating rounds of ${roundMs} ms each`);
  const pgDir = join(work, 'pg-prune');
  const started = spawnSync('bash', ['scripts/start-postgres.sh', pgDir], { cwd: ROOT, encoding: 'utf8' });
  if (started.status !== 0) {
    say(`  skipped: PostgreSQL could not be started (${started.stderr.trim().split('\n').pop()})`);
    return [];
  }
  const dataDir = join(pgDir, 'data');
  const url = started.stdout.trim().split('\n').pop()!;
  let server: Server | null = null;
  let pool: pg.Pool | null = null;
  try {
    const pinned = process.env.BENCH_PG_UNPINNED !== '1' && pinPostgres(dataDir, 1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS bench_prune');
    await admin.query('CREATE DATABASE bench_prune');
    await admin.end();
    const dbUrl = Object.assign(new URL(url), { pathname: '/bench_prune' }).href;
    await (await createPostgresStore(dbUrl)).close(); // migrates
    const now = Date.now();
    const seeded = await seedPostgresDeliveries(dbUrl, count, now - 400 * DAY);
    say(`  ${pinned ? 'database server pinned to core 1, with the load generator' : 'database server unpinned'}; seeded ${seeded.rows.toLocaleString('en')} rows in ${fmt(seeded.ms / 1000, 1)} s (generate_series, one statement a table, then VACUUM ANALYZE)`);
    say(`  the prune: batches of ${batchSize} deliveries, pause ${pauseFactor}× each batch's time`);
    const port = await freePort();
    server = await startServer([...listenArgs(port, join(work, `unused-${port}.db`)), '--store', dbUrl, '--retain', 'off'], port, '/webhooks');
    await load(server.url, 1500, connections); // warm-up
    pool = createPool(dbUrl, { max: 2, queryTimeoutMs: 600_000, applicationName: 'hookrelay-prune-bench' });
    const prune = gatedPrune(pool, now - 30 * DAY, batchSize, pauseFactor);
    const ratios: number[] = [];
    let prunedDuring = 0;
    const without: Measured[] = [];
    const during: Measured[] = [];
    const filledRounds: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      await prune.stop();
      const a = await measure(server.url, roundMs, connections, dataDir);
      without.push(a);
      const before = prune.state();
      prune.go();
      const b = await measure(server.url, roundMs, connections, dataDir);
      const after = prune.state();
      during.push(b);
      await prune.stop();
      const filled = !after.finished; // it ran throughout (a batch may outlast the round)
      const removed = after.sofar.deliveries - before.sofar.deliveries;
      if (filled) {
        ratios.push(b.rps / a.rps);
        filledRounds.push(round - 1);
      }
      prunedDuring += removed;
      const line = (m: Measured) =>
        `${fmt(m.rps)} req/s p99 ${fmt(m.p99, 2)} ms, database ${m.dbUs === null ? '?' : fmt(m.dbUs)} µs/req${m.core1Busy === null ? '' : ` (core 1 ${fmt(m.core1Busy * 100)}% busy)`}${m.requests - m.ok ? ` (${m.requests - m.ok} non-2xx)` : ''}`;
      say(
        `  round ${round}: without the prune ${line(a)} | during it ${line(b)}, ${removed.toLocaleString('en')} deliveries pruned meanwhile (${after.batches - before.batches} batches) | ${fmt(b.rps / a.rps, 2)}×${filled ? '' : ' (the prune did not fill this round: left out)'}`,
      );
    }
    const duringRate = prunedDuring / ((rounds * roundMs) / 1000);
    const pace = duringRate > 0 ? `${fmt(duringRate)} deliveries/s (${fmt(duringRate * 4)} rows/s): ${fmt(count / duringRate)} s for ${count.toLocaleString('en')} deliveries at that pace` : 'no batch ended within a round';
    say(`  beside the intake the prune removed ${pace}`);
    let whole = '';
    if (FINISH) {
      const finishing = performance.now();
      prune.go();
      const result = (await prune.done)!;
      const { activeMs, batches } = prune.state();
      const rows = result.deliveries + result.attempts + result.relayAttempts + result.deliveries; // + one relay job each
      whole = `; run to its end (BENCH_PRUNE_FINISH=1): ${result.deliveries.toLocaleString('en')} deliveries (${rows.toLocaleString('en')} rows) in ${batches} batches, ${fmt(activeMs / 1000, 1)} s of running (${fmt((performance.now() - finishing) / 1000, 1)} s of it alone after the rounds): ${fmt(result.deliveries / (activeMs / 1000))} deliveries/s, ${fmt(rows / (activeMs / 1000))} rows/s`;
      say(`  the whole prune${whole.slice(whole.indexOf(':'))}`);
    } else {
      await prune.abandon();
    }
    const ratio = ratios.length > 0 ? median(ratios) : Number.NaN;
    const described = (list: Measured[]) => `${fmt(median(list.map((m) => m.rps)))} req/s, p99 ${fmt(median(list.map((m) => m.p99)), 2)} ms, database ${fmt(median(list.map((m) => m.dbUs ?? Number.NaN)))} µs/req`;
    return [
      {
        measure: `PostgreSQL: intake during a prune of ${count.toLocaleString('en')} old deliveries (batches of ${batchSize}, pause ${pauseFactor}×) vs intake without it, same rounds`,
        result: ratios.length > 0 ? `${fmt(ratio, 2)}× (median of the rounds' ${ratios.map((r) => fmt(r, 2)).join(', ')}); during ${described(filledRounds.map((i) => during[i]!))}; without ${described(filledRounds.map((i) => without[i]!))} (medians of those rounds)` : 'no round ran with the prune throughout',
        target: '≥ 0.90×',
        met: ratios.length > 0 ? ratio >= 0.9 : false,
      },
      {
        measure: 'PostgreSQL: the prune itself, beside the intake',
        result: `${pace}${whole}`,
        target: '',
        met: null,
      },
    ];
  } finally {
    await pool?.end().catch(() => {});
    await server?.stop();
    spawnSync('bash', ['scripts/stop-postgres.sh', pgDir, '--remove'], { cwd: ROOT });
  }
}
