/**
 * The PostgreSQL driver: several hookrelay instances share one database. Each accept is one
 * transaction (`INSERT … ON CONFLICT (id) DO NOTHING`, so concurrent copies of an id arriving at
 * different instances make one delivery); the relay outbox is claimed with `FOR UPDATE SKIP
 * LOCKED` and a lease, so each job is handed on by one worker at a time. PostgreSQL does its own
 * group commit: no writer thread here.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  StoreUnavailableError,
  type AcceptResult,
  type AttemptInput,
  type AttemptOutcome,
  type AttemptRecord,
  type DeliveryPage,
  type DeliveryStore,
  type NewDelivery,
  type PruneResult,
  type RelayOutcome,
  type StoreStats,
} from '../store.js';
import { createPool, describePgError, parsePostgresUrl } from './pg-connection.js';
import { pgText, toAttempt, toDelivery, toJob, toRelayAttempt, type AttemptRow, type DeliveryRow, type JobRow, type RelayAttemptRow } from './pg-rows.js';
import { migratePostgres } from './pg-schema.js';

export interface PostgresStoreOptions {
  /** Write a relay outbox job with every accepted delivery (forwarding is on). */
  outbox?: boolean;
  /**
   * How long a job returned by dueRelayJobs stays reserved for this instance (default 60 s, or
   * the URL's `relay_lease_ms`). Longer than a hand-off can take: past it, another instance
   * takes the job over (that is how a crashed instance's jobs are resumed).
   */
  relayLeaseMs?: number;
  /** The relay's --forward-timeout: the default lease is at least twice it, so a slow hand-off keeps its claim. */
  forwardTimeoutMs?: number;
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

export const DEFAULT_RELAY_LEASE_MS = 60_000;

const DELIVERY_COLUMNS =
  'd.seq, d.id, d.trigger, d.api_version, d.api_version_known, d.received_at, d.signature, d.secret_index, d.signature_t, d.headers, d.raw_body, d.duplicate_count, d.last_attempt_at';

// Named statements: parsed and planned once per connection.
const SQL = {
  insertDelivery: `INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, last_attempt_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING seq`,
  countDuplicate: 'UPDATE deliveries SET duplicate_count = duplicate_count + 1, last_attempt_at = $2 WHERE id = $1 RETURNING seq',
  insertAttempt: `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
  insertJob: "INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at) VALUES ($1, 'pending', $2, $2)",
  getDelivery: `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE d.id = $1`,
  countArrivals: `SELECT (SELECT COUNT(*) FROM attempts WHERE delivery_seq = (SELECT seq FROM deliveries WHERE id = $1))
    + (SELECT COUNT(*) FROM attempts WHERE delivery_seq IS NULL AND delivery_id = $1) AS n`,
  // Claim: due, not leased by anyone (or the lease ran out), rows another worker is claiming
  // right now are skipped rather than waited for.
  claimJobs: `WITH due AS (
      SELECT delivery_seq FROM relay_jobs
      WHERE state = 'pending' AND next_at <= $1 AND (leased_until IS NULL OR leased_until <= $1) AND delivery_seq <> ALL($5::bigint[])
      ORDER BY next_at, delivery_seq LIMIT $2
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE relay_jobs j SET leased_until = $1::bigint + $3::bigint, leased_by = $4
      FROM due WHERE j.delivery_seq = due.delivery_seq
      RETURNING j.delivery_seq, j.state, j.tries, j.next_at, j.last_status, j.last_error
    )
    SELECT ${DELIVERY_COLUMNS}, c.state, c.tries, c.next_at, c.last_status, c.last_error
    FROM claimed c JOIN deliveries d ON d.seq = c.delivery_seq ORDER BY c.next_at, c.delivery_seq`,
  insertRelayAttempt: `INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  // A job moves only while pending and only for the worker holding it (or nobody): a stale
  // worker whose lease was taken over never undoes a `done`, so nothing goes out again after a 2xx.
  recordRelayMove: `WITH tried AS (
      INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    )
    UPDATE relay_jobs SET state = $9, tries = $8, next_at = $10, last_status = $4, last_error = $5, updated_at = $3, leased_until = NULL, leased_by = NULL
    WHERE delivery_seq = $1 AND state = 'pending' AND (leased_by IS NULL OR leased_by = $11)`,
  requeue: `UPDATE relay_jobs SET state = 'pending', next_at = $2, updated_at = $2, leased_until = NULL, leased_by = NULL
    WHERE state = 'dead' AND delivery_seq = (SELECT seq FROM deliveries WHERE id = $1)`,
  jobOf: 'SELECT state, tries, next_at, last_status, last_error FROM relay_jobs WHERE delivery_seq = $1',
  relayAttemptsOf: 'SELECT * FROM relay_attempts WHERE delivery_seq = $1 ORDER BY seq',
  jobCounts: 'SELECT state, COUNT(*) AS n FROM relay_jobs GROUP BY state',
  deleteDelivery: `WITH d AS (DELETE FROM deliveries WHERE id = $1 RETURNING seq),
      a1 AS (DELETE FROM attempts WHERE delivery_seq IN (SELECT seq FROM d)),
      a2 AS (DELETE FROM attempts WHERE delivery_seq IS NULL AND delivery_id = $1 AND EXISTS (SELECT 1 FROM d)),
      r AS (DELETE FROM relay_attempts WHERE delivery_seq IN (SELECT seq FROM d)),
      j AS (DELETE FROM relay_jobs WHERE delivery_seq IN (SELECT seq FROM d))
    SELECT COUNT(*) AS n FROM d`,
  // Retention, as the other drivers: deliveries last seen before $1 go with their attempts and
  // relay history, except those whose relay is still pending; refused attempts go by their own
  // age unless they claim an id that stays. One statement: one snapshot, one transaction.
  prune: `WITH cand AS (
      SELECT d.seq, d.id, (j.state = 'pending') AS pending FROM deliveries d LEFT JOIN relay_jobs j ON j.delivery_seq = d.seq
      WHERE d.last_attempt_at < $1
    ), gone AS (SELECT seq, id FROM cand WHERE pending IS NOT TRUE),
    linked AS (SELECT seq FROM attempts WHERE delivery_seq IN (SELECT seq FROM gone)),
    refused AS (
      SELECT a.seq FROM attempts a WHERE a.delivery_seq IS NULL AND a.received_at < $1
      AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = a.delivery_id AND d.seq NOT IN (SELECT seq FROM gone))
    ),
    relayed AS (SELECT seq FROM relay_attempts WHERE delivery_seq IN (SELECT seq FROM gone)),
    del_attempts AS (DELETE FROM attempts WHERE NOT $2::boolean AND seq IN (SELECT seq FROM linked UNION ALL SELECT seq FROM refused)),
    del_relayed AS (DELETE FROM relay_attempts WHERE NOT $2::boolean AND seq IN (SELECT seq FROM relayed)),
    del_jobs AS (DELETE FROM relay_jobs WHERE NOT $2::boolean AND delivery_seq IN (SELECT seq FROM gone)),
    del_deliveries AS (DELETE FROM deliveries WHERE NOT $2::boolean AND seq IN (SELECT seq FROM gone))
    SELECT (SELECT COUNT(*) FROM gone) AS deliveries,
      (SELECT COUNT(*) FROM linked) + (SELECT COUNT(*) FROM refused) AS attempts,
      (SELECT COUNT(*) FROM relayed) AS relay_attempts,
      (SELECT COUNT(*) FROM cand WHERE pending) AS kept_pending`,
  deliveryStats: 'SELECT COUNT(*) AS n, MIN(received_at) AS oldest, MAX(received_at) AS newest FROM deliveries',
  attemptStats: 'SELECT outcome, COUNT(*) AS n FROM attempts GROUP BY outcome',
} as const;

type SqlName = keyof typeof SQL;
const named = (name: SqlName, values: unknown[]): pg.QueryConfig => ({ name: `hookrelay_${name}`, text: SQL[name], values });

/**
 * Opens the store at `url` (`postgres://…`; hookrelay's own `relay_lease_ms` and `pool_max`
 * query parameters are honoured) and applies pending migrations under an advisory lock.
 * Rejects when the server cannot be reached or the schema is newer than this build.
 */
export async function createPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const parsed = parsePostgresUrl(url);
  if (!parsed.ok) throw new Error(`--store: ${parsed.message}`);
  const { connectionString } = parsed.settings;
  const leaseMs = options.relayLeaseMs ?? parsed.settings.relayLeaseMs ?? Math.max(DEFAULT_RELAY_LEASE_MS, 2 * (options.forwardTimeoutMs ?? 0));
  const pool = createPool(connectionString, { max: options.poolMax ?? parsed.settings.poolMax ?? 10, queryTimeoutMs: options.queryTimeoutMs });
  const instanceId = randomBytes(8).toString('hex');
  const outbox = options.outbox ?? false;

  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot open the PostgreSQL store: ${describePgError(err)}`, { cause: err });
  }

  const inFlight = new Set<Promise<unknown>>();
  let closing: Promise<void> | null = null;

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

  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      // The connection may be broken: never hand it back to the pool.
      client.release(true);
      throw err;
    }
  }

  const attemptValues = (attempt: AttemptInput, deliverySeq: number | null, outcome: AttemptRecord['outcome']) => [
    deliverySeq, pgText(attempt.deliveryId), pgText(attempt.trigger), attempt.receivedAt, attempt.finishedAt, attempt.attemptHeader,
    attempt.signatureTimestamp, pgText(attempt.bodySha256), attempt.bodyBytes, outcome, attempt.status, pgText(attempt.reason), pgText(attempt.retryAfter),
  ];

  async function seqOf(id: string): Promise<number | undefined> {
    const { rows } = await pool.query<{ seq: number }>({ name: 'hookrelay_seqOf', text: 'SELECT seq FROM deliveries WHERE id = $1', values: [pgText(id)] });
    return rows[0]?.seq;
  }

  async function relayCounts(): Promise<{ pending: number; done: number; dead: number }> {
    const counts = { pending: 0, done: 0, dead: 0 };
    const { rows } = await pool.query<{ state: string; n: number }>(named('jobCounts', []));
    for (const { state, n } of rows) if (state in counts) counts[state as keyof typeof counts] = n;
    return counts;
  }

  return {
    instanceId,
    claimsRelayJobs: true,

    accept(delivery: NewDelivery, attempt: AttemptInput): Promise<AcceptResult> {
      return write(() =>
        transaction(async (client) => {
          const id = pgText(delivery.id);
          const inserted = await client.query<{ seq: number }>(
            named('insertDelivery', [
              id, pgText(delivery.trigger), pgText(delivery.apiVersion), delivery.apiVersionKnown, delivery.receivedAt, delivery.signature,
              delivery.secretIndex, delivery.signatureTimestamp, delivery.rawHeaders.map(pgText), delivery.rawBody, attempt.receivedAt,
            ]),
          );
          let seq = inserted.rows[0]?.seq;
          let outcome: AcceptResult['outcome'] = 'accepted';
          if (seq === undefined) {
            // Another transaction (here or on another instance) stored this id first; ON CONFLICT
            // waited for it to commit, so the row is there to count the copy against.
            const counted = await client.query<{ seq: number }>(named('countDuplicate', [id, attempt.receivedAt]));
            seq = counted.rows[0]?.seq;
            if (seq === undefined) throw new Error(`delivery ${JSON.stringify(delivery.id)} vanished while its copy was recorded`);
            outcome = 'duplicate';
          }
          await client.query(named('insertAttempt', attemptValues(attempt, seq, outcome)));
          // The outbox job is part of the accepting transaction: accepted means it will be handed on.
          if (outbox && outcome === 'accepted') await client.query(named('insertJob', [seq, attempt.receivedAt]));
          return { outcome, deliverySeq: seq };
        }),
      );
    },

    async recordAttempt(attempt) {
      await write(() => pool.query(named('insertAttempt', attemptValues(attempt, null, attempt.outcome))));
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
        const sql = `SELECT * FROM attempts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ${param(query.limit)}`;
        const { rows } = await pool.query<AttemptRow>(sql, values);
        return rows.map(toAttempt);
      });
    },

    countArrivals(deliveryId) {
      return read(async () => {
        const { rows } = await pool.query<{ n: number }>(named('countArrivals', [pgText(deliveryId)]));
        return rows[0]?.n ?? 0;
      });
    },

    dueRelayJobs(now, limit, skip = new Set()) {
      // A claim writes (the lease): it fails like a write.
      return write(async () => {
        const { rows } = await pool.query<DeliveryRow & JobRow>(named('claimJobs', [now, limit, leaseMs, instanceId, [...skip]]));
        return rows.map((row) => ({ job: toJob(row.seq, row.id, row), delivery: toDelivery(row) }));
      });
    },

    async recordRelay(o: RelayOutcome) {
      await write(async () => {
        const tried = [o.deliverySeq, o.startedAt, o.finishedAt, o.status, pgText(o.error), o.replay, pgText(o.target), o.try];
        if (!o.next) await pool.query(named('insertRelayAttempt', tried));
        else {
          const nextAt = o.next.state === 'pending' ? o.next.nextAt : o.finishedAt;
          await pool.query(named('recordRelayMove', [...tried, o.next.state, nextAt, instanceId]));
        }
      });
    },

    relayHistory(deliveryId) {
      return read(async () => {
        const seq = await seqOf(deliveryId);
        if (seq === undefined) return { job: null, attempts: [] };
        const [job, attempts] = await Promise.all([
          pool.query<JobRow>(named('jobOf', [seq])),
          pool.query<RelayAttemptRow>(named('relayAttemptsOf', [seq])),
        ]);
        return { job: job.rows[0] ? toJob(seq, deliveryId, job.rows[0]) : null, attempts: attempts.rows.map(toRelayAttempt) };
      });
    },

    async requeueRelay(deliveryId, now) {
      const result = await write(() => pool.query(named('requeue', [pgText(deliveryId), now])));
      return (result.rowCount ?? 0) > 0;
    },

    relayCounts() {
      return read(relayCounts);
    },

    async deleteDelivery(id) {
      const { rows } = await write(() => pool.query<{ n: number }>(named('deleteDelivery', [pgText(id)])));
      return (rows[0]?.n ?? 0) > 0;
    },

    async prune(before, { dryRun = false } = {}): Promise<PruneResult> {
      const { rows } = await write(() =>
        pool.query<{ deliveries: number; attempts: number; relay_attempts: number; kept_pending: number }>(named('prune', [before, dryRun])),
      );
      const r = rows[0]!;
      return { before, deliveries: r.deliveries, attempts: r.attempts, relayAttempts: r.relay_attempts, keptPending: r.kept_pending, dryRun };
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

    async probe() {
      // A real write: txid_current() assigns a transaction id, so the commit writes (and, with
      // synchronous_commit, flushes) a WAL record. A read-only server or a standby refuses it.
      await write(() => pool.query('SELECT txid_current()'));
    },

    close(): Promise<void> {
      closing ??= (async () => {
        // Commits in flight finish (or fail) first; then the connections are closed.
        await Promise.allSettled([...inFlight]);
        await pool.end().catch(() => {});
      })();
      return closing;
    },
  };
}
