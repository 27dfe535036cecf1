/** The PostgreSQL store's statements, each prepared once per connection under its name. */
import type pg from 'pg';
import { ANSWER_COLUMNS, ANSWER_COLUMNS_ABSENT, RELAY_ATTEMPT_COLUMNS } from '../rows.js';
import { claimableBy, DB_NOW_MS } from './pg-instance-heartbeat.js';

export const DELIVERY_COLUMNS =
  'd.seq, d.id, d.trigger, d.api_version, d.api_version_known, d.received_at, d.signature, d.secret_index, d.signature_t, d.headers, d.raw_body, d.duplicate_count, d.last_attempt_at';

/** A relay job's name in SQL, as relayJobKey (core/records.ts) builds it: a delivery has one job per target. */
const JOB_KEY = "(j.delivery_seq::text || '|' || coalesce(j.target, ''))";

/**
 * No earlier job of job j's target and key in `states` (each a partial index of migration 8: done
 * rows never walked). Written as min(…) IS NULL, not NOT EXISTS: for an EXISTS the planner may pick
 * a sequential scan, expecting an early match (on freshly written rows it did: a claim past 100,000
 * waiting jobs of one key ran for minutes), while a min() is always the index's first entry.
 */
const noEarlierOfKey = (states: string) =>
  `(SELECT min(e.delivery_seq) FROM relay_jobs e WHERE e.target = j.target AND e.order_key = j.order_key AND e.delivery_seq < j.delivery_seq AND e.state ${states}) IS NULL`;

/**
 * An ordered job j (`order_key` set) is free while no earlier job of its target and key is owed:
 * pending or held, or dead where its target's dead jobs block (`deadBlocks`: a text[] parameter).
 * As the SQLite reader's KEY_FREE and the memory store's earlierOwedOfKey.
 */
const KEY_FREE = (deadBlocks: string) => `(${noEarlierOfKey("IN ('pending', 'held')")}
  AND (j.target <> ALL(${deadBlocks}::text[]) OR ${noEarlierOfKey("= 'dead'")}))`;

// Named statements: parsed and planned once per connection.
export const SQL = {
  // Group commit (pg-accept-group.ts): a whole group of accepts in one statement, its own implicit
  // transaction; the function is migration 8 (pg-schema.ts). Every argument is cast: the arrays
  // arrive as literals in text. Since session 31 it counts only the copies of ids stored before
  // (acceptFresh writes the rest); an instance of an older build still sends it whole groups.
  acceptGroup: `SELECT out_seqs AS seqs, out_fresh AS fresh, out_attempts AS attempts FROM hookrelay_accept_group_v2(
      $1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::text[], $7::integer[], $8::bigint[], $9::text[], $10::integer[], $11::integer[],
      $12::bytea, $13::integer[], $14::integer[], $15::integer[], $16::bigint[],
      $17::integer[], $18::boolean[], $19::text[], $20::text[], $21::bigint[], $22::bigint[], $23::integer[], $24::bigint[], $25::text[], $26::integer[],
      $27::integer[], $28::text[], $29::text[], $30::text[], $31::text[], $32::integer[], $33::integer[],
      $34::integer[], $35::text[], $36::text[])`,
  // The fresh part of a group (pg-accept-group.ts), as one top-level statement with acceptGroup's
  // arguments: the first statement of migration 8's function, which costs the database ~35% more a
  // request when run inside the function. `pg_current_xact_id() IS NOT NULL` is a filter with no
  // column, checked before the first row reaches the insert: the transaction id is taken before any
  // seq is drawn, as the commit-order horizon needs (pg-settled-horizon.ts). Returns the requests
  // (their 1-based places in the group) whose attempts it wrote, each with its delivery's seq, and
  // those attempts' seqs in the same order.
  // It repeats that statement's text on purpose: a migration is never edited, and the function still
  // runs it for the copies of stored ids (an id deleted meanwhile is inserted there). So a change to
  // what this statement writes is a change to the function too: a new function in a new migration,
  // and acceptGroup calling it.
  acceptFresh: `WITH ins AS (
      INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body,
        duplicate_count, last_attempt_at)
      SELECT u.id, u.trigger, u.api_version, u.known, u.received_at, u.signature, u.secret_index, u.signature_t, ($9::text[])[u.hlo:u.hhi],
        substring($12::bytea FROM u.boff FOR u.blen), coalesce(u.copies, 1) - 1, coalesce(u.last_at, u.received_at)
      FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[], $6::text[], $7::integer[], $8::bigint[], $10::integer[], $11::integer[],
          $13::integer[], $14::integer[], $15::integer[], $16::bigint[])
        WITH ORDINALITY AS u(id, trigger, api_version, known, received_at, signature, secret_index, signature_t, hlo, hhi, boff, blen, copies, last_at, n)
      WHERE pg_current_xact_id() IS NOT NULL
      ORDER BY u.n
      ON CONFLICT (id) DO NOTHING
      RETURNING deliveries.seq, deliveries.id, deliveries.trigger, deliveries.received_at, deliveries.signature_t, octet_length(deliveries.raw_body) AS bytes
    ), cands AS (
      SELECT c.id, c.n FROM unnest($1::text[]) WITH ORDINALITY AS c(id, n)
    ), mine AS (
      SELECT r.n, r.cand, r.finished_at, r.attempt_header, r.body_sha256, r.reason, r.retry_after, r.hints, r.hlo, r.hhi, ins.seq AS dseq,
        coalesce(r.first, true) AS acc,
        CASE WHEN cardinality($19::text[]) = 0 THEN ins.id ELSE r.id END AS id,
        CASE WHEN cardinality($20::text[]) = 0 THEN ins.trigger ELSE r.trigger END AS trigger,
        CASE WHEN cardinality($21::bigint[]) = 0 THEN ins.received_at ELSE r.received_at END AS received_at,
        CASE WHEN cardinality($24::bigint[]) = 0 THEN ins.signature_t ELSE r.signature_t END AS signature_t,
        CASE WHEN cardinality($26::integer[]) = 0 THEN ins.bytes ELSE r.body_bytes END AS body_bytes,
        CASE WHEN cardinality($27::integer[]) = 1 THEN ($27::integer[])[1] ELSE r.status END AS status
      FROM unnest($17::integer[], $18::boolean[], $19::text[], $20::text[], $21::bigint[], $22::bigint[], $23::integer[], $24::bigint[], $25::text[],
          $26::integer[], $27::integer[], $28::text[], $29::text[], $30::text[], $32::integer[], $33::integer[])
        WITH ORDINALITY AS r(cand, first, id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, status, reason,
          retry_after, hints, hlo, hhi, n)
      JOIN cands ON cands.n = r.cand
      JOIN ins ON ins.id = cands.id
    ), jobs AS (
      INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at, target, order_key, job_n)
      SELECT mine.dseq, 'pending', mine.received_at, mine.received_at, j.target, j.order_key, row_number() OVER (PARTITION BY j.cand ORDER BY j.n)
      FROM unnest($34::integer[], $35::text[], $36::text[]) WITH ORDINALITY AS j(cand, target, order_key, n)
      JOIN mine ON mine.cand = j.cand AND mine.acc
    ), att AS (
      INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status,
        reason, retry_after, hints, request_headers)
      SELECT mine.dseq, mine.id, mine.trigger, mine.received_at, mine.finished_at, mine.attempt_header, mine.signature_t, mine.body_sha256, mine.body_bytes,
        CASE WHEN mine.acc THEN 'accepted' ELSE 'duplicate' END, mine.status, mine.reason, mine.retry_after, mine.hints,
        CASE WHEN mine.acc THEN NULL ELSE ($31::text[])[mine.hlo:mine.hhi] END
      FROM mine ORDER BY mine.n
      RETURNING attempts.seq
    )
    SELECT (SELECT coalesce(array_agg(mine.n ORDER BY mine.n), '{}') FROM mine) AS done, (SELECT coalesce(array_agg(mine.dseq ORDER BY mine.n), '{}') FROM mine) AS deliveries,
      (SELECT coalesce(array_agg(att.seq ORDER BY att.seq), '{}') FROM att) AS attempts`,
  insertAttempt: `INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after,
      hints, request_headers, request_body)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING seq`,
  getDelivery: `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE d.id = $1`,
  countArrivals: `SELECT (SELECT COUNT(*) FROM attempts WHERE delivery_seq = (SELECT seq FROM deliveries WHERE id = $1))
    + (SELECT COUNT(*) FROM attempts WHERE delivery_seq IS NULL AND delivery_id = $1) AS n`,
  // Claim: due, and claimable by this instance ($4; pg-instance-heartbeat.ts has the one rule),
  // except the jobs its worker holds ($5, job keys) and those of targets paced shut ($6); rows
  // another worker is claiming right now are skipped rather than waited for. The claim's own lease
  // is one time to live ($3) on the server's clock. An ordered job is due only while its key is free
  // ($7: the targets whose dead jobs block) and, when $8 is given, only up to that delivery seq: the
  // commit-order horizon (pg-store.ts dueRelayJobs), below which no earlier job of its key can still
  // be committed unseen. A head stays pending while it is claimed, so the next job of its key is
  // not due for any instance until the head is recorded done (or dead, where dead does not block).
  claimJobs: `WITH due AS (
      SELECT j.delivery_seq, j.target FROM relay_jobs j
      WHERE j.state = 'pending' AND j.next_at <= $1 AND ${JOB_KEY} <> ALL($5::text[]) AND ${claimableBy('$4', 'j')}
        AND (j.target IS NULL OR j.target <> ALL($6::text[]))
        AND (j.order_key IS NULL OR (($8::bigint IS NULL OR j.delivery_seq <= $8::bigint) AND ${KEY_FREE('$7')}))
      ORDER BY j.next_at, j.delivery_seq, j.job_n LIMIT $2
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE relay_jobs j SET leased_until = ${DB_NOW_MS} + $3::bigint, leased_by = $4
      FROM due WHERE j.delivery_seq = due.delivery_seq AND coalesce(j.target, '') = coalesce(due.target, '')
      RETURNING j.delivery_seq, j.state, j.tries, j.next_at, j.last_status, j.last_error, j.target, j.job_n
    )
    SELECT ${DELIVERY_COLUMNS}, c.state, c.tries, c.next_at, c.last_status, c.last_error, c.target
    FROM claimed c JOIN deliveries d ON d.seq = c.delivery_seq ORDER BY c.next_at, c.delivery_seq, c.job_n`,
  // Only this instance's own claims of jobs still pending ($1: job keys): one that moved meanwhile is left as it is.
  releaseClaims: `UPDATE relay_jobs j SET leased_until = NULL, leased_by = NULL WHERE ${JOB_KEY} = ANY($1::text[]) AND j.leased_by = $2 AND j.state = 'pending'`,
  insertRelayAttempt: `INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try,
      answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
  // A job moves only while pending and only for the worker holding it (or nobody): a stale
  // worker whose lease was taken over never undoes a `done`, so nothing goes out again after a 2xx.
  // The job of the target tried ($17, as queued), or the delivery's job with no target: one queued
  // before targets were kept is its delivery's only job.
  recordRelayMove: `WITH tried AS (
      INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try,
        answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
    )
    UPDATE relay_jobs SET state = $14, tries = $8, next_at = $15, last_status = $4, last_error = $5, updated_at = $3, leased_until = NULL, leased_by = NULL
    WHERE delivery_seq = $1 AND (target = $17 OR target IS NULL) AND state = 'pending' AND (leased_by IS NULL OR leased_by = $16)`,
  // Every dead job of the delivery, or only its job for $3 (null: any).
  requeue: `UPDATE relay_jobs SET state = 'pending', next_at = $2, updated_at = $2, leased_until = NULL, leased_by = NULL
    WHERE state = 'dead' AND delivery_seq = (SELECT seq FROM deliveries WHERE id = $1) AND ($3::text IS NULL OR target = $3::text)`,
  // A delivery's jobs in the order queued (schema 8); before it, a delivery had one.
  jobsOf: 'SELECT state, tries, next_at, last_status, last_error, target FROM relay_jobs WHERE delivery_seq = $1 ORDER BY job_n',
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
  // Owed jobs for $1 (null: queued before targets were kept) go to $2, pending. A delivery that has a
  // job for $2 already is handed there by that one: its job for $1 is deleted (counted too). Onto the
  // same target, nothing is merged (each job would find itself). One statement: both parts see one
  // snapshot, so no job is both deleted and moved.
  retargetJobs: `WITH revived AS (
      UPDATE relay_jobs t SET state = 'pending', next_at = $3, updated_at = $3, leased_until = NULL, leased_by = NULL
      WHERE t.target = $2::text AND t.state IN ('dead', 'held') AND $1::text IS DISTINCT FROM $2::text
        AND EXISTS (SELECT 1 FROM relay_jobs f WHERE f.delivery_seq = t.delivery_seq AND f.target IS NOT DISTINCT FROM $1::text AND f.state IN ('pending', 'held'))
      RETURNING 1
    ), merged AS (
      DELETE FROM relay_jobs j WHERE j.state IN ('pending', 'held') AND j.target IS NOT DISTINCT FROM $1::text AND $1::text IS DISTINCT FROM $2::text
        AND EXISTS (SELECT 1 FROM relay_jobs t WHERE t.delivery_seq = j.delivery_seq AND t.target = $2::text)
      RETURNING 1
    ), moved AS (
      UPDATE relay_jobs j SET target = $2::text, state = 'pending', updated_at = $3, leased_until = NULL, leased_by = NULL
      WHERE j.state IN ('pending', 'held') AND j.target IS NOT DISTINCT FROM $1::text
        AND ($1::text IS NOT DISTINCT FROM $2::text OR NOT EXISTS (SELECT 1 FROM relay_jobs t WHERE t.delivery_seq = j.delivery_seq AND t.target = $2::text))
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM merged)::int + (SELECT count(*) FROM moved)::int AS n`,
  // Keys of ordered target $1 held up by their head (RelayOutbox.blockedOrderKeys): a head that failed
  // and waits for its retry, or a dead one where dead jobs block ($2), with owed jobs behind it.
  blockedOrderKeys: `SELECT j.target, j.order_key AS key, d.id AS "deliveryId", j.state, j.tries, j.last_status AS "lastStatus", j.last_error AS "lastError",
      (SELECT count(*)::int FROM relay_jobs f WHERE f.target = j.target AND f.order_key = j.order_key AND f.delivery_seq > j.delivery_seq AND f.state IN ('pending', 'held')) AS waiting
    FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq
    WHERE j.target = $1 AND j.order_key IS NOT NULL AND ((j.state = 'pending' AND j.tries > 0) OR (j.state = 'dead' AND j.target = ANY($2::text[])))
      AND ${KEY_FREE('$2')}
      AND (SELECT min(f.delivery_seq) FROM relay_jobs f WHERE f.target = j.target AND f.order_key = j.order_key AND f.delivery_seq > j.delivery_seq AND f.state IN ('pending', 'held')) IS NOT NULL
    ORDER BY j.delivery_seq LIMIT $3`,
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
  // one batch (~50 ms) where the single statement's was the whole prune. A delivery has one relay
  // job per target: it stays while any of them is owed. The jobs of one that is not go, each only
  // if it is still neither pending nor held when deleted, and the delivery only when every one of
  // them went (a job requeued meanwhile keeps its delivery, with that job: its finished siblings may
  // be gone, which hands nothing on twice). `last`: the window's highest seq (null: nothing after
  // $1); `looked`: its size.
  pruneDeliveries: `WITH win AS MATERIALIZED (
      SELECT seq FROM deliveries WHERE seq > $1 AND ($4::bigint IS NULL OR seq <= $4::bigint) ORDER BY seq LIMIT $3
    ), old AS MATERIALIZED (
      SELECT d.seq FROM deliveries d WHERE d.seq IN (SELECT seq FROM win) AND d.last_attempt_at < $2 ORDER BY d.id FOR UPDATE
    ), jobs AS MATERIALIZED (
      SELECT j.delivery_seq AS seq, bool_or(j.state IN ('pending', 'held')) AS owed, count(*) AS n FROM relay_jobs j
      WHERE j.delivery_seq IN (SELECT seq FROM old) GROUP BY j.delivery_seq
    ), del_jobs AS (
      DELETE FROM relay_jobs j WHERE j.delivery_seq IN (SELECT seq FROM jobs WHERE NOT owed) AND j.state NOT IN ('pending', 'held') RETURNING j.delivery_seq AS seq
    ), gone AS (
      DELETE FROM deliveries d
      WHERE d.seq IN (SELECT o.seq FROM old o WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.seq = o.seq)
        UNION ALL SELECT x.seq FROM del_jobs x JOIN jobs ON jobs.seq = x.seq GROUP BY x.seq, jobs.n HAVING count(*) = jobs.n)
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
      SELECT d.seq, EXISTS (SELECT 1 FROM relay_jobs j WHERE j.delivery_seq = d.seq AND j.state IN ('pending', 'held')) AS owed FROM deliveries d
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
