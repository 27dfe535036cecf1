/** The PostgreSQL store's statements, each prepared once per connection under its name. */
import type pg from 'pg';
import { ANSWER_COLUMNS, ANSWER_COLUMNS_ABSENT, RELAY_ATTEMPT_COLUMNS } from '../rows.js';
import { claimableBy, DB_NOW_MS } from './pg-instance-heartbeat.js';

export const DELIVERY_COLUMNS =
  'd.seq, d.id, d.trigger, d.api_version, d.api_version_known, d.received_at, d.signature, d.secret_index, d.signature_t, d.headers, d.raw_body, d.duplicate_count, d.last_attempt_at';

// Named statements: parsed and planned once per connection.
export const SQL = {
  // Group commit (pg-accept-group.ts): a whole group of accepts in one statement, its own implicit
  // transaction; the function is migration 6 (pg-schema.ts). Every argument is cast: the arrays
  // arrive as literals in text.
  acceptGroup: `SELECT out_seqs AS seqs, out_fresh AS fresh, out_attempts AS attempts FROM hookrelay_accept_group_v1(
      $1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::text[], $7::integer[], $8::bigint[], $9::text[], $10::integer[], $11::integer[],
      $12::bytea, $13::integer[], $14::integer[], $15::integer[], $16::bigint[], $17::boolean,
      $18::integer[], $19::boolean[], $20::text[], $21::text[], $22::bigint[], $23::bigint[], $24::integer[], $25::bigint[], $26::text[], $27::integer[],
      $28::integer[], $29::text[], $30::text[], $31::text[], $32::text[], $33::integer[], $34::integer[], $35::text[])`,
  insertAttempt: `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after,
      hints, request_headers, request_body)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING seq`,
  insertJob: "INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at, target) VALUES ($1, 'pending', $2, $2, $3)",
  getDelivery: `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE d.id = $1`,
  countArrivals: `SELECT (SELECT COUNT(*) FROM attempts WHERE delivery_seq = (SELECT seq FROM deliveries WHERE id = $1))
    + (SELECT COUNT(*) FROM attempts WHERE delivery_seq IS NULL AND delivery_id = $1) AS n`,
  // Claim: due, and claimable by this instance ($4; pg-instance-heartbeat.ts has the one rule),
  // except the jobs its worker holds ($5); rows another worker is claiming right now are skipped
  // rather than waited for. The claim's own lease is one time to live ($3) on the server's clock.
  claimJobs: `WITH due AS (
      SELECT delivery_seq FROM relay_jobs j
      WHERE state = 'pending' AND next_at <= $1 AND delivery_seq <> ALL($5::bigint[]) AND ${claimableBy('$4', 'j')}
        AND (j.target IS NULL OR j.target <> ALL($6::text[]))
      ORDER BY next_at, delivery_seq LIMIT $2
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE relay_jobs j SET leased_until = ${DB_NOW_MS} + $3::bigint, leased_by = $4
      FROM due WHERE j.delivery_seq = due.delivery_seq
      RETURNING j.delivery_seq, j.state, j.tries, j.next_at, j.last_status, j.last_error, j.target
    )
    SELECT ${DELIVERY_COLUMNS}, c.state, c.tries, c.next_at, c.last_status, c.last_error, c.target
    FROM claimed c JOIN deliveries d ON d.seq = c.delivery_seq ORDER BY c.next_at, c.delivery_seq`,
  // Only this instance's own claims of jobs still pending: one that moved meanwhile is left as it is.
  releaseClaims: "UPDATE relay_jobs SET leased_until = NULL, leased_by = NULL WHERE delivery_seq = ANY($1::bigint[]) AND leased_by = $2 AND state = 'pending'",
  insertRelayAttempt: `INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try,
      answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
  // A job moves only while pending and only for the worker holding it (or nobody): a stale
  // worker whose lease was taken over never undoes a `done`, so nothing goes out again after a 2xx.
  recordRelayMove: `WITH tried AS (
      INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try,
        answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
    )
    UPDATE relay_jobs SET state = $14, tries = $8, next_at = $15, last_status = $4, last_error = $5, updated_at = $3, leased_until = NULL, leased_by = NULL
    WHERE delivery_seq = $1 AND state = 'pending' AND (leased_by IS NULL OR leased_by = $16)`,
  requeue: `UPDATE relay_jobs SET state = 'pending', next_at = $2, updated_at = $2, leased_until = NULL, leased_by = NULL
    WHERE state = 'dead' AND delivery_seq = (SELECT seq FROM deliveries WHERE id = $1)`,
  jobOf: 'SELECT state, tries, next_at, last_status, last_error, target FROM relay_jobs WHERE delivery_seq = $1',
  // A reader of a schema before migration 5 (no job targets).
  jobOfSchema4: 'SELECT state, tries, next_at, last_status, last_error FROM relay_jobs WHERE delivery_seq = $1',
  relayBacklog: `SELECT j.target, j.state, COUNT(*) AS n, MIN(d.received_at) AS oldest, COUNT(*) FILTER (WHERE j.tries > 0) AS retrying
    FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq WHERE j.state <> 'done' GROUP BY j.target, j.state`,
  relayBacklogSchema4: `SELECT NULL AS target, j.state, COUNT(*) AS n, MIN(d.received_at) AS oldest, COUNT(*) FILTER (WHERE j.tries > 0) AS retrying
    FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq WHERE j.state <> 'done' GROUP BY j.state`,
  // Never a job another live instance is handing on ($3: this instance).
  holdForeignJobs: `UPDATE relay_jobs j SET state = 'held', updated_at = $2, leased_until = NULL, leased_by = NULL
    WHERE state = 'pending' AND target IS NOT NULL AND target <> ALL($1::text[]) AND ${claimableBy('$3', 'j')}`,
  releaseOwnJobs: "UPDATE relay_jobs SET state = 'pending', updated_at = $2 WHERE state = 'held' AND target = ANY($1::text[])",
  retargetJobs: `UPDATE relay_jobs SET target = $2, state = 'pending', updated_at = $3, leased_until = NULL, leased_by = NULL
    WHERE state IN ('pending', 'held') AND target IS NOT DISTINCT FROM $1`,
  relayAttemptsOf: `SELECT ${RELAY_ATTEMPT_COLUMNS} FROM relay_attempts WHERE delivery_seq = $1 ORDER BY seq`,
  // The newest $2 tries with their answers, newest first (NULL: every one).
  relayAnswersOf: `SELECT ${RELAY_ATTEMPT_COLUMNS}, ${ANSWER_COLUMNS} FROM relay_attempts WHERE delivery_seq = $1 ORDER BY seq DESC LIMIT $2`,
  // A reader of a schema before migration 4 (no answer columns): every try reads as not kept.
  relayAnswersOfSchema3: `SELECT ${RELAY_ATTEMPT_COLUMNS}, ${ANSWER_COLUMNS_ABSENT} FROM relay_attempts WHERE delivery_seq = $1 ORDER BY seq DESC LIMIT $2`,
  jobCounts: 'SELECT state, COUNT(*) AS n FROM relay_jobs GROUP BY state',
  deleteDelivery: `WITH d AS (DELETE FROM deliveries WHERE id = $1 RETURNING seq),
      a1 AS (DELETE FROM attempts WHERE delivery_seq IN (SELECT seq FROM d)),
      a2 AS (DELETE FROM attempts WHERE delivery_seq IS NULL AND delivery_id = $1 AND EXISTS (SELECT 1 FROM d)),
      r AS (DELETE FROM relay_attempts WHERE delivery_seq IN (SELECT seq FROM d)),
      j AS (DELETE FROM relay_jobs WHERE delivery_seq IN (SELECT seq FROM d))
    SELECT COUNT(*) AS n FROM d`,
  // Retention in bounded batches (pg-prune.ts), the same rules as the other drivers: deliveries
  // last seen before $2 go with their attempts and relay history, except those whose relay is still
  // owed (pending or held) and those above $4 (a bridge cursor, keepAfterSeq). Each statement looks
  // at the next $3 deliveries after seq $1 and is its own short implicit transaction. The old ones
  // are locked in id order, as an accept group locks the ids it counts copies of, so the two never
  // wait on each other in a cycle; FOR UPDATE re-reads last_attempt_at from the newest version, so a
  // delivery re-seen by a copy committed since the snapshot stays. A copy arriving while this batch
  // holds its old delivery waits for the commit, and its accept group then fails (503: the accept
  // function refuses a delivery deleted under it); the sender's retry stores it anew. That window is
  // one batch (~50 ms) where the single statement's was the whole prune. A relay job goes only if
  // it is still neither pending nor held when deleted (a requeue meanwhile keeps it), and its
  // delivery only with it. `last`: the window's highest seq (null: nothing after $1); `looked`: its
  // size.
  pruneDeliveries: `WITH win AS MATERIALIZED (
      SELECT seq FROM deliveries WHERE seq > $1 AND ($4::bigint IS NULL OR seq <= $4::bigint) ORDER BY seq LIMIT $3
    ), old AS MATERIALIZED (
      SELECT d.seq FROM deliveries d WHERE d.seq IN (SELECT seq FROM win) AND d.last_attempt_at < $2 ORDER BY d.id FOR UPDATE
    ), jobs AS MATERIALIZED (
      SELECT j.delivery_seq AS seq, j.state IN ('pending', 'held') AS owed FROM relay_jobs j WHERE j.delivery_seq IN (SELECT seq FROM old)
    ), del_jobs AS (
      DELETE FROM relay_jobs j WHERE j.delivery_seq IN (SELECT seq FROM jobs WHERE NOT owed) AND j.state NOT IN ('pending', 'held') RETURNING j.delivery_seq AS seq
    ), gone AS (
      DELETE FROM deliveries d
      WHERE d.seq IN (SELECT o.seq FROM old o WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = o.seq) UNION ALL SELECT seq FROM del_jobs)
      AND d.last_attempt_at < $2
      RETURNING d.seq
    ), del_attempts AS (DELETE FROM attempts WHERE delivery_seq IN (SELECT seq FROM gone) RETURNING 1),
    del_relayed AS (DELETE FROM relay_attempts WHERE delivery_seq IN (SELECT seq FROM gone) RETURNING 1)
    SELECT (SELECT max(seq) FROM win) AS last, (SELECT count(*) FROM win) AS looked, (SELECT count(*) FROM gone) AS deliveries,
      (SELECT count(*) FROM del_attempts) AS attempts, (SELECT count(*) FROM del_relayed) AS relay_attempts,
      (SELECT count(*) FROM old) - (SELECT count(*) FROM gone) AS kept_pending`,
  // The same window, only counted (a dry run): no lock taken, nothing changed.
  pruneDeliveriesDry: `WITH win AS MATERIALIZED (
      SELECT seq FROM deliveries WHERE seq > $1 AND ($4::bigint IS NULL OR seq <= $4::bigint) ORDER BY seq LIMIT $3
    ), old AS MATERIALIZED (
      SELECT d.seq, coalesce(j.state IN ('pending', 'held'), false) AS owed FROM deliveries d LEFT JOIN relay_jobs j ON j.delivery_seq = d.seq
      WHERE d.seq IN (SELECT seq FROM win) AND d.last_attempt_at < $2
    ), gone AS MATERIALIZED (SELECT seq FROM old WHERE NOT owed)
    SELECT (SELECT max(seq) FROM win) AS last, (SELECT count(*) FROM win) AS looked, (SELECT count(*) FROM gone) AS deliveries,
      (SELECT count(*) FROM attempts WHERE delivery_seq IN (SELECT seq FROM gone)) AS attempts,
      (SELECT count(*) FROM relay_attempts WHERE delivery_seq IN (SELECT seq FROM gone)) AS relay_attempts,
      (SELECT count(*) FROM old WHERE owed) AS kept_pending`,
  // Then refused attempts (no stored delivery) received before $2, the next $3 after seq $1: they go
  // by their own age unless they claim an id that stays. After the deliveries' walk every stored
  // delivery stays; a dry run ($5) removed none, so it asks whether the claimed one would.
  pruneRefused: `WITH win AS MATERIALIZED (
      SELECT a.seq, a.delivery_id FROM attempts a WHERE a.delivery_seq IS NULL AND a.received_at < $2 AND a.seq > $1 ORDER BY a.seq LIMIT $3
    ), doomed AS MATERIALIZED (
      SELECT w.seq FROM win w WHERE NOT EXISTS (
        SELECT 1 FROM deliveries d LEFT JOIN relay_jobs j ON j.delivery_seq = d.seq WHERE d.id = w.delivery_id
        AND (NOT $5::boolean OR d.last_attempt_at >= $2 OR j.state IN ('pending', 'held') OR ($4::bigint IS NOT NULL AND d.seq > $4::bigint)))
    ), del AS (DELETE FROM attempts WHERE NOT $5::boolean AND seq IN (SELECT seq FROM doomed) RETURNING 1)
    SELECT (SELECT max(seq) FROM win) AS last, (SELECT count(*) FROM win) AS looked,
      CASE WHEN $5::boolean THEN (SELECT count(*) FROM doomed) ELSE (SELECT count(*) FROM del) END AS attempts`,
  // The bridge: along the seq primary key (see the known limit in pg-store.ts, deliveriesAfter).
  deliveriesAfter: `SELECT ${DELIVERY_COLUMNS}
    FROM deliveries d WHERE d.seq > $1 AND d.seq <= $4 AND ($3::text[] IS NULL OR d.trigger LIKE ANY($3::text[])) ORDER BY d.seq LIMIT $2`,
  countDeliveriesAfter: `SELECT count(*)::int AS n FROM deliveries d
    WHERE d.seq > $1 AND d.seq <= $2 AND ($3::text[] IS NULL OR d.trigger LIKE ANY($3::text[]))`,
  latestDeliverySeq: 'SELECT coalesce(max(seq), 0) AS seq FROM deliveries WHERE seq <= $1',
  bridgeCursor: 'SELECT name, acked_seq, updated_at FROM bridge_subscribers WHERE name = $1',
  bridgeCursors: 'SELECT name, acked_seq, updated_at FROM bridge_subscribers ORDER BY name COLLATE "C"',
  registerSubscriber: `INSERT INTO bridge_subscribers (name, acked_seq, updated_at) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO NOTHING RETURNING name, acked_seq, updated_at`,
  // Forward only: an older or repeated acknowledgement changes nothing, not even the time.
  ackSubscriber: `INSERT INTO bridge_subscribers (name, acked_seq, updated_at) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO UPDATE SET acked_seq = EXCLUDED.acked_seq, updated_at = EXCLUDED.updated_at
    WHERE bridge_subscribers.acked_seq <= EXCLUDED.acked_seq`,
  deliveryStats: 'SELECT COUNT(*) AS n, MIN(received_at) AS oldest, MAX(received_at) AS newest FROM deliveries',
  attemptStats: 'SELECT outcome, COUNT(*) AS n FROM attempts GROUP BY outcome',
} as const;

type SqlName = keyof typeof SQL;

/** A trigger glob (`*` any run, `?` one character) as a LIKE pattern with LIKE's default escape (backslash): the same matches. */
export function globToLike(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%').replaceAll('?', '_');
}

export const named = (name: SqlName, values: unknown[]): pg.QueryConfig => ({ name: `hookrelay_${name}`, text: SQL[name], values });
