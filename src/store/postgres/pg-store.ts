/**
 * The PostgreSQL driver: several hookrelay instances share one database. Accepts are group
 * committed (pg-accept-group.ts): those of one event-loop turn, or queued while the previous
 * group's commit was in flight, go into one transaction with one multi-row `INSERT … ON CONFLICT
 * (id) DO NOTHING` (so concurrent copies of an id arriving at different instances make one
 * delivery), on one of two connections, and each is answered after its group's COMMIT. The relay
 * outbox (one job per delivery and target) is claimed with `FOR UPDATE SKIP LOCKED`, and a claim
 * lasts while its instance's heartbeat does (pg-instance-heartbeat.ts), so each job is handed on by
 * one worker at a time; an ordered target's key hands on one job at a time, in seq order
 * (pg-queries.ts claimJobs). No writer thread here: the database server does the writing.
 */
import { NoStoreError } from '../no-store-error.js';
import { randomBytes } from 'node:crypto';
import { deadBlockingTargets, type RelayTargets } from '../../core/routes.js';
import type pg from 'pg';
import {
  StoreUnavailableError,
  type AcceptResult,
  type AttemptInput,
  type AttemptOutcome,
  type AttemptRecord,
  type BridgeCursor,
  type CommitReport,
  type DeliveryPage,
  type DeliveryStore,
  type NewDelivery,
  type PruneResult,
  foldBacklog,
  jobTargetOf,
  type BlockedOrderKey,
  type RelayBacklog,
  type RelayCounts,
  type RelayOutcome,
  type StoreStats,
  type StoredDelivery,
} from '../store.js';
import { checkBridgeCursorArgs, clampLimit } from '../bridge-cursors.js';
import { createPool, describePgError, parsePostgresUrl } from './pg-connection.js';
import { ATTEMPT_COLUMNS, hintsColumn } from '../rows.js';
import { pgText, toAttemptWith, toDelivery, toJob, toKeptAnswer, toRelayAttempt, type AnswerRow, type DeliveryRow, type JobRow, type RelayAttemptRow, type RequestRow } from './pg-rows.js';
import { checkPostgresSchema, migratePostgres, PG_SCHEMA_VERSION } from './pg-schema.js';
import { startInstanceHeartbeat } from './pg-instance-heartbeat.js';
import { createSettledHorizon } from './pg-settled-horizon.js';
import { createAcceptGroups } from './pg-accept-group.js';
import { DELIVERY_COLUMNS, globToLike, named } from './pg-queries.js';
import { prunePostgres } from './pg-prune.js';

interface CursorRow {
  name: string;
  acked_seq: number;
  updated_at: number;
}
const toCursor = (row: CursorRow): BridgeCursor => ({ name: row.name, ackedSeq: row.acked_seq, updatedAt: row.updated_at });

export interface PostgresStoreOptions {
  /** A reading command: check the schema, never migrate (a read-only role or a standby can be read). */
  readOnly?: boolean;
  /** Write the relay outbox jobs of every accepted delivery (forwarding is on), one per target it is routed to, with its order key (true: one job, no target kept). */
  outbox?: boolean | RelayTargets;
  /**
   * How long the claims of an instance that stopped renewing them last (default 15 s, or the URL's
   * `relay_lease_ms`): pg-instance-heartbeat.ts. A live instance keeps its claims however long a
   * hand-off takes; a killed one's jobs come back within this of the kill.
   */
  relayLeaseMs?: number;
  /** Each group commit of accepts, for metrics. */
  onCommit?: (report: CommitReport) => void;
  /** Connections in this instance's pool (default 10, or the URL's `pool_max`). */
  poolMax?: number;
  /** Give up on one query after this long (default 15 s): answered 503, never held forever. */
  queryTimeoutMs?: number;
}

export interface PostgresStore extends DeliveryStore {
  /** Names this instance's claims on relay jobs (`leased_by`). */
  readonly instanceId: string;
  readonly claimsRelayJobs: true;
}

export const DEFAULT_RELAY_LEASE_MS = 15_000;

/**
 * Connections of the pool that accept groups commit on at once (pg-accept-group.ts): while one
 * group waits for its COMMIT's flush, the next is written on the other, and whatever queues in
 * the meantime goes into the group after. More would only split the same requests into smaller
 * groups, each with its own flush.
 */
const ACCEPT_CONNECTIONS = 2;

/**
 * Opens the store at `url` (`postgres://…`; hookrelay's own `relay_lease_ms` and `pool_max`
 * query parameters are honoured) and applies pending migrations under an advisory lock.
 * Rejects when the server cannot be reached or the schema is newer than this build.
 */
export async function createPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const parsed = parsePostgresUrl(url);
  if (!parsed.ok) throw new Error(`--store: ${parsed.message}`);
  const { connectionString } = parsed.settings;
  const leaseMs = options.relayLeaseMs ?? parsed.settings.relayLeaseMs ?? DEFAULT_RELAY_LEASE_MS;
  const poolMax = options.poolMax ?? parsed.settings.poolMax ?? 10;
  const pool = createPool(connectionString, { max: poolMax, queryTimeoutMs: options.queryTimeoutMs });
  const horizon = createSettledHorizon(pool);
  const instanceId = randomBytes(8).toString('hex');
  const outbox = options.outbox ?? false;
  // The ordered targets whose dead jobs keep the later ones of their key waiting (on-dead=block).
  const deadBlocks = deadBlockingTargets(outbox).map(pgText);
  const ordered = typeof outbox === 'object' && outbox.order !== undefined && Object.keys(outbox.order).length > 0;
  // The claims' own horizon, waiting at most 50 ms for accepts in flight: a claim serves unordered
  // targets too, and an ordered job not yet settled is read at the next poll.
  const claimHorizon = ordered ? createSettledHorizon(pool, { waitMs: 50 }) : null;

  // A reader may find an older schema (it never migrates): the kept answers come with version 4.
  let schemaVersion = PG_SCHEMA_VERSION;
  try {
    const client = await pool.connect();
    try {
      if (options.readOnly) schemaVersion = await checkPostgresSchema(client);
      else await migratePostgres(client);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    // No store in the schema: the caller tells a wrong --store (usage) from a failure.
    if (err instanceof NoStoreError) throw err;
    throw new Error(`cannot open the PostgreSQL store: ${describePgError(err)}`, { cause: err });
  }

  const inFlight = new Set<Promise<unknown>>();
  let closing: Promise<void> | null = null;
  const groups = createAcceptGroups(pool, { outbox, connections: Math.min(ACCEPT_CONNECTIONS, poolMax), onCommit: options.onCommit });
  // Started by the first claim. A beat that fails is the server unreachable: writes answer 503 then,
  // and the next beat (a third of the time to live later) tries again.
  const heartbeat = startInstanceHeartbeat(pool, instanceId, leaseMs, () => {});

  /** Every write: rejects with StoreUnavailableError, whatever went wrong (the receiver answers 503). */
  async function write<T>(work: () => Promise<T>): Promise<T> {
    if (closing) throw new StoreUnavailableError('the store is closing');
    const running = work().catch((err: unknown) => {
      throw new StoreUnavailableError(`the store could not write: ${describePgError(err)}`, { cause: err });
    });
    inFlight.add(running);
    try {
      return await running;
    } finally {
      inFlight.delete(running);
    }
  }

  async function read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw new Error(`the PostgreSQL store cannot read: ${describePgError(err)}`, { cause: err });
    }
  }

  /**
   * An attempt that stored no delivery (recordAttempt): `requestHeaders`, the flat header list it
   * keeps, and its body. Accepted and duplicate attempts are written by the accept groups.
   */
  const attemptValues = (attempt: AttemptInput, deliverySeq: number | null, outcome: AttemptRecord['outcome'], requestHeaders: readonly string[] | null) => [
    deliverySeq, pgText(attempt.deliveryId), pgText(attempt.trigger), attempt.receivedAt, attempt.finishedAt, attempt.attemptHeader,
    attempt.signatureTimestamp, pgText(attempt.bodySha256), attempt.bodyBytes, outcome, attempt.status, pgText(attempt.reason), pgText(attempt.retryAfter),
    pgText(hintsColumn(attempt.hints)), requestHeaders === null ? null : requestHeaders.map(pgText),
    deliverySeq === null ? (attempt.request?.body ?? null) : null,
  ];

  async function seqOf(id: string): Promise<number | undefined> {
    const { rows } = await pool.query<{ seq: number }>({ name: 'hookrelay_seqOf', text: 'SELECT seq FROM deliveries WHERE id = $1', values: [pgText(id)] });
    return rows[0]?.seq;
  }

  async function relayCounts(): Promise<RelayCounts> {
    const counts = { pending: 0, held: 0, done: 0, dead: 0 };
    const { rows } = await pool.query<{ state: string; n: number }>(named('jobCounts', []));
    for (const { state, n } of rows) if (state in counts) counts[state as keyof typeof counts] = n;
    return counts;
  }

  return {
    instanceId,
    claimsRelayJobs: true,

    accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult> {
      // Group commit (pg-accept-group.ts): answered after its statement's COMMIT; a failed statement fails every request it carried.
      return write(() => groups.accept(delivery, attempt));
    },

    async recordAttempt(attempt) {
      const headers = attempt.request ? attempt.request.headers.flat() : null;
      const written = await write(() => pool.query<{ seq: number }>(named('insertAttempt', attemptValues(attempt, null, attempt.outcome, headers))));
      return Number(written.rows[0]!.seq);
    },

    getDelivery(id) {
      return read(async () => {
        const { rows } = await pool.query<DeliveryRow>(named('getDelivery', [pgText(id)]));
        return rows[0] ? toDelivery(rows[0]) : undefined;
      });
    },

    listDeliveries(query): Promise<DeliveryPage> {
      return read(async () => {
        const where: string[] = [];
        const values: unknown[] = [];
        const param = (value: unknown) => (values.push(value), `$${values.length}`);
        if (query.before !== undefined) where.push(`d.seq < ${param(query.before)}`);
        if (query.trigger !== undefined) where.push(`d.trigger = ${param(pgText(query.trigger))}`);
        if (query.duplicatesOnly) where.push('d.duplicate_count > 0');
        if (query.text) {
          // Literal substring (no LIKE wildcards): in the id, the trigger, or the body's bytes as
          // UTF-8 or Latin-1, as the in-memory double does.
          const text = pgText(query.text);
          const t = param(text);
          const bodies = [Buffer.from(text, 'utf8')];
          if (/^[\u0000-\u00ff]*$/.test(text) && !bodies[0]!.equals(Buffer.from(text, 'latin1'))) bodies.push(Buffer.from(text, 'latin1'));
          where.push(`(strpos(d.id, ${t}) > 0 OR strpos(d.trigger, ${t}) > 0 OR ${bodies.map((b) => `position(${param(b)}::bytea IN d.raw_body) > 0`).join(' OR ')})`);
        }
        const sql = `SELECT ${DELIVERY_COLUMNS} FROM deliveries d ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.seq DESC LIMIT ${param(query.limit + 1)}`;
        const { rows } = await pool.query<DeliveryRow>(sql, values);
        const more = rows.length > query.limit;
        const items = rows.slice(0, query.limit).map(toDelivery);
        return { items, nextCursor: more ? items[items.length - 1]!.seq : null };
      });
    },

    listAttempts(query) {
      return read(async () => {
        const where: string[] = [];
        const values: unknown[] = [];
        const param = (value: unknown) => (values.push(value), `$${values.length}`);
        if (query.deliveryId !== undefined) {
          const id = param(pgText(query.deliveryId));
          where.push(`(delivery_seq = (SELECT seq FROM deliveries WHERE id = ${id}) OR (delivery_seq IS NULL AND delivery_id = ${id}))`);
        }
        if (query.before !== undefined) where.push(`seq < ${param(query.before)}`);
        if (query.since !== undefined) where.push(`received_at >= ${param(query.since)}`);
        if (query.outcomes) where.push(`outcome = ANY(${param([...query.outcomes])}::text[])`);
        const withRequest = query.withRequest === true;
        const columns = withRequest ? `${ATTEMPT_COLUMNS}, request_headers, request_body` : ATTEMPT_COLUMNS;
        const sql = `SELECT ${columns} FROM attempts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ${param(query.limit)}`;
        const { rows } = await pool.query<RequestRow>(sql, values);
        return rows.map((row) => toAttemptWith(row, withRequest));
      });
    },

    countArrivals(deliveryId) {
      return read(async () => {
        const { rows } = await pool.query<{ n: number }>(named('countArrivals', [pgText(deliveryId)]));
        return rows[0]?.n ?? 0;
      });
    },

    dueRelayJobs(now, limit, skip = new Set(), skipTargets = []) {
      // A claim writes (the lease): it fails like a write.
      return write(async () => {
        await heartbeat.ensure();
        // Seqs are drawn at insert and groups of several instances commit out of seq order: an ordered
        // job past the commit-order horizon could have an earlier job of its key not yet visible, so it
        // waits until the horizon passes it (a few ms; a transaction left open stalls ordered targets
        // only). Without an order configured here, no horizon: jobs with keys left by an earlier run
        // still wait for the earlier owed jobs of their key.
        const upTo = claimHorizon ? await claimHorizon.settledSeq() : null;
        const { rows } = await pool.query<DeliveryRow & JobRow>(
          named('claimJobs', [now, limit, leaseMs, instanceId, [...skip].map(pgText), skipTargets.map(pgText), deadBlocks, upTo]),
        );
        return rows.map((row) => ({ job: toJob(row.seq, row.id, row), delivery: toDelivery(row) }));
      });
    },

    async releaseRelayClaims(jobKeys) {
      await write(async () => {
        await pool.query(named('releaseClaims', [jobKeys.map(pgText), instanceId]));
      });
    },

    async recordRelay(o: RelayOutcome) {
      await write(async () => {
        const a = o.answer ?? null;
        const answer = a === null ? [null, null, null, null, null] : [a.headerLines, a.bodyBytes, a.complete, JSON.stringify(a.headers), a.body];
        const tried = [o.deliverySeq, o.startedAt, o.finishedAt, o.status, pgText(o.error), o.replay, pgText(o.target), o.try, ...answer];
        if (!o.next) await pool.query(named('insertRelayAttempt', tried));
        else {
          const nextAt = o.next.state === 'pending' ? o.next.nextAt : o.finishedAt;
          await pool.query(named('recordRelayMove', [...tried, o.next.state, nextAt, instanceId, pgText(jobTargetOf(o))]));
        }
      });
    },

    relayHistory(deliveryId, { withAnswers = false, answersOfNewest } = {}) {
      return read(async () => {
        const seq = await seqOf(deliveryId);
        if (seq === undefined) return { jobs: [], attempts: [] };
        const [jobs, attempts, answers] = await Promise.all([
          pool.query<JobRow>(named(schemaVersion >= 8 ? 'jobsOf' : schemaVersion >= 5 ? 'jobOf' : 'jobOfSchema4', [seq])),
          pool.query<RelayAttemptRow>(named('relayAttemptsOf', [seq])),
          // Only the newest tries' answers when bounded: a delivery replayed thousands of times reads no more.
          withAnswers ? pool.query<AnswerRow>(named(schemaVersion >= 4 ? 'relayAnswersOf' : 'relayAnswersOfSchema3', [seq, answersOfNewest === undefined ? null : Math.max(0, answersOfNewest)])) : null,
        ]);
        const answered = new Map((answers?.rows ?? []).map((row) => [Number(row.seq), toKeptAnswer(row)]));
        const tries = attempts.rows.map((row) => (withAnswers ? { ...toRelayAttempt(row), answer: answered.get(Number(row.seq)) ?? null } : toRelayAttempt(row)));
        return { jobs: jobs.rows.map((row) => toJob(seq, deliveryId, row)), attempts: tries };
      });
    },

    async requeueRelay(deliveryId, now, target) {
      const result = await write(() => pool.query(named('requeue', [pgText(deliveryId), now, target === undefined ? null : pgText(target)])));
      return (result.rowCount ?? 0) > 0;
    },

    relayCounts() {
      return read(relayCounts);
    },

    blockedOrderKeys(target, limit) {
      return read(async () => {
        // Order keys are kept from schema 8: a reader of an older schema finds none.
        if (schemaVersion < 8) return [];
        const { rows } = await pool.query<BlockedOrderKey>(named('blockedOrderKeys', [pgText(target), deadBlocks, Math.max(0, Math.floor(limit))]));
        return rows;
      });
    },

    relayBacklog() {
      return read(async () => {
        const { rows } = await pool.query<{ target: string | null; state: string; n: string; oldest: string | null; retrying: string }>(
          named(schemaVersion >= 5 ? 'relayBacklog' : 'relayBacklogSchema4', []),
        );
        return foldBacklog(rows);
      });
    },

    async holdRelayJobs(targets, now) {
      return write(async () => {
        const list = targets.map(pgText);
        const held = await pool.query(named('holdForeignJobs', [list, now, instanceId]));
        const released = await pool.query(named('releaseOwnJobs', [list, now]));
        return (held.rowCount ?? 0) + (released.rowCount ?? 0);
      });
    },

    async retargetRelayJobs(from, to, now) {
      const result = await write(() => pool.query<{ n: number }>(named('retargetJobs', [from === null ? null : pgText(from), pgText(to), now])));
      return result.rows[0]?.n ?? 0;
    },

    async deleteDelivery(id) {
      const { rows } = await write(() => pool.query<{ n: number }>(named('deleteDelivery', [pgText(id)])));
      return (rows[0]?.n ?? 0) > 0;
    },

    // In bounded batches, each its own short transaction, pausing between them (pg-prune.ts).
    prune(before, options = {}): Promise<PruneResult> {
      return prunePostgres(pool, write, before, options);
    },

    stats(): Promise<StoreStats> {
      return read(async () => {
        const [deliveries, attempts, relayJobs] = await Promise.all([
          pool.query<{ n: number; oldest: number | null; newest: number | null }>(named('deliveryStats', [])),
          pool.query<{ outcome: AttemptOutcome; n: number }>(named('attemptStats', [])),
          relayCounts(),
        ]);
        const byOutcome: Record<AttemptOutcome, number> = { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 };
        for (const { outcome, n } of attempts.rows) if (outcome in byOutcome) byOutcome[outcome] = n;
        const d = deliveries.rows[0]!;
        return { deliveries: d.n, attempts: byOutcome, relayJobs, oldestReceivedAt: d.oldest, newestReceivedAt: d.newest };
      });
    },

    /**
     * Only up to the commit-order horizon (pg-settled-horizon.ts): seq is drawn at insert, and
     * transactions on different instances may commit out of seq order. Reading past a seq that is
     * still in flight would let a cursor acknowledged above it skip it for good.
     */
    deliveriesAfter(afterSeq, limit, triggers): Promise<StoredDelivery[]> {
      return read(async () => {
        const n = clampLimit(limit);
        if (n === 0) return [];
        const upTo = await horizon.settledSeq();
        if (upTo <= afterSeq) return [];
        const patterns = triggers && triggers.length > 0 ? triggers.map((t) => globToLike(pgText(t))) : null;
        const { rows } = await pool.query<DeliveryRow>(named('deliveriesAfter', [afterSeq, n, patterns, upTo]));
        return rows.map(toDelivery);
      });
    },

    countDeliveriesAfter(afterSeq, upToSeq, triggers) {
      return read(async () => {
        const upTo = Math.min(upToSeq, await horizon.settledSeq());
        if (upTo <= afterSeq) return 0;
        const patterns = triggers && triggers.length > 0 ? triggers.map((t) => globToLike(pgText(t))) : null;
        const { rows } = await pool.query<{ n: number }>(named('countDeliveriesAfter', [afterSeq, upTo, patterns]));
        return rows[0]!.n;
      });
    },

    bridgeCursor(name) {
      return read(async () => {
        const { rows } = await pool.query<CursorRow>(named('bridgeCursor', [pgText(name)]));
        return rows[0] ? toCursor(rows[0]) : null;
      });
    },

    bridgeCursors() {
      return read(async () => (await pool.query<CursorRow>(named('bridgeCursors', []))).rows.map(toCursor));
    },

    async registerBridgeSubscriber(name, seq, now) {
      checkBridgeCursorArgs(name, seq, now);
      return write(async () => {
        const { rows } = await pool.query<CursorRow>(named('registerSubscriber', [pgText(name), seq, now]));
        if (rows[0]) return toCursor(rows[0]);
        // Known already (or just registered by another instance): read it with a fresh snapshot.
        const known = await pool.query<CursorRow>(named('bridgeCursor', [pgText(name)]));
        if (!known.rows[0]) throw new Error(`bridge subscriber ${JSON.stringify(name)} vanished while it was registered`);
        return toCursor(known.rows[0]);
      });
    },

    async ackBridge(name, seq, now) {
      checkBridgeCursorArgs(name, seq, now);
      await write(() => pool.query(named('ackSubscriber', [pgText(name), seq, now])));
    },

    latestDeliverySeq() {
      // The newest delivery that can no longer be passed over (a duplicate draws a seq and stores no row): a new subscriber starts here.
      return read(async () => {
        const upTo = await horizon.settledSeq();
        return (await pool.query<{ seq: number }>(named('latestDeliverySeq', [upTo]))).rows[0]?.seq ?? 0;
      });
    },

    async probe() {
      // A real write: txid_current() assigns a transaction id, so the commit writes (and, with
      // synchronous_commit, flushes) a WAL record. A read-only server or a standby refuses it.
      await write(() => pool.query('SELECT txid_current()'));
    },

    close(): Promise<void> {
      closing ??= (async () => {
        // Commits in flight finish (or fail) first; then the connections are closed.
        await Promise.allSettled([...inFlight]);
        await heartbeat.stop();
        await pool.end().catch(() => {});
      })();
      return closing;
    },
  };
}
