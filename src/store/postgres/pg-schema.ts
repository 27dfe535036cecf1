/**
 * Versioned migrations of the PostgreSQL store. Several instances may start at once: the
 * migrations run under a session advisory lock, so exactly one applies each version and the
 * others wait, then find it applied. Append only: never edit a migration that has shipped.
 */
import { NoStoreError } from '../no-store-error.js';
import type { PoolClient } from 'pg';

/** Key of the advisory lock that serialises migrations (any constant; "hookrelay" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x686f6f6b72656c61n;

const MIGRATIONS: readonly string[] = [
  // 1: deliveries, attempts, the relay outbox (with its lease) and its history. Times are ms since the epoch.
  `
  CREATE TABLE deliveries (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    trigger TEXT NOT NULL,
    api_version TEXT NOT NULL,
    api_version_known BOOLEAN NOT NULL,
    received_at BIGINT NOT NULL,
    signature TEXT NOT NULL,
    secret_index INTEGER,
    signature_t BIGINT,
    -- flat name, value, name, value… in arrival order (an array keeps order; JSONB objects do not)
    headers TEXT[] NOT NULL,
    raw_body BYTEA NOT NULL,
    duplicate_count INTEGER NOT NULL DEFAULT 0,
    last_attempt_at BIGINT NOT NULL
  );
  CREATE INDEX deliveries_by_trigger ON deliveries (trigger, seq);
  CREATE TABLE attempts (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_seq BIGINT,
    delivery_id TEXT,
    trigger TEXT,
    received_at BIGINT NOT NULL,
    finished_at BIGINT NOT NULL,
    attempt_header INTEGER,
    signature_t BIGINT,
    body_sha256 TEXT NOT NULL,
    body_bytes INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    status INTEGER,
    reason TEXT,
    retry_after TEXT
  );
  -- As in SQLite: attempts that stored a delivery point at it; the others are found by the id they claimed.
  CREATE INDEX attempts_by_delivery ON attempts (delivery_seq) WHERE delivery_seq IS NOT NULL;
  CREATE INDEX attempts_by_claimed_id ON attempts (delivery_id) WHERE delivery_seq IS NULL;
  CREATE INDEX attempts_by_received ON attempts (received_at);
  CREATE TABLE relay_jobs (
    delivery_seq BIGINT PRIMARY KEY,
    state TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at BIGINT NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    updated_at BIGINT NOT NULL,
    -- The claim of one worker (dueRelayJobs): no other instance takes the job before this time.
    leased_until BIGINT,
    leased_by TEXT
  );
  CREATE INDEX relay_jobs_due ON relay_jobs (next_at) WHERE state = 'pending';
  CREATE TABLE relay_attempts (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_seq BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT NOT NULL,
    status INTEGER,
    error TEXT,
    replay BOOLEAN NOT NULL,
    target TEXT NOT NULL,
    try INTEGER NOT NULL
  );
  CREATE INDEX relay_attempts_by_delivery ON relay_attempts (delivery_seq);
  `,
  // 2: the bridge's subscriber cursors.
  `
  CREATE TABLE bridge_subscribers (
    name TEXT PRIMARY KEY,
    acked_seq BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  `,
  // 3: what a rejected or faulted attempt sent (issue 13, item 8): its headers (flat name, value…)
  // and raw body (a duplicate: its headers), and the hints on why it was rejected (JSON array).
  // Removed with the attempt.
  `
  ALTER TABLE attempts ADD COLUMN hints TEXT;
  ALTER TABLE attempts ADD COLUMN request_headers TEXT[];
  ALTER TABLE attempts ADD COLUMN request_body BYTEA;
  `,
  // 4: what the target answered to each relay try (issue 13, item 13): how many header lines it had
  // and its body's size as seen, its header lines (the first 100, JSON [[name, value], …]: TEXT, as
  // JSONB refuses \u0000) and the first 4 KiB of its body. Null for a try without an answer, and for
  // those recorded before. Removed with the try.
  `
  ALTER TABLE relay_attempts ADD COLUMN answer_header_lines INTEGER;
  ALTER TABLE relay_attempts ADD COLUMN answer_body_bytes INTEGER;
  ALTER TABLE relay_attempts ADD COLUMN answer_complete BOOLEAN;
  ALTER TABLE relay_attempts ADD COLUMN answer_headers TEXT;
  ALTER TABLE relay_attempts ADD COLUMN answer_body BYTEA;
  `,
  // 5: the target each relay job was queued for (issue 36, item 7): a job belongs to it, and a run
  // that forwards elsewhere holds it (state 'held'). Null for jobs queued before.
  `
  ALTER TABLE relay_jobs ADD COLUMN target TEXT;
  `,
  // 6: group commit of accepts (pg-accept-group.ts): one call writes a whole group in the caller's
  // transaction, so a group is one statement, one round trip and one commit. Its statements each
  // see a fresh snapshot (a volatile function under READ COMMITTED), which is what counting a copy
  // of an id that another transaction committed meanwhile needs. Arguments: the group's distinct
  // ids (d_*, in the order their rows are locked), then one entry per request in the group's order
  // (a_*: its id's position in d_*, whether it is that id's first copy, its attempt, the relay
  // target of a first copy). Headers are slices [lo:hi] of one flat array (a first copy keeps its
  // delivery's, in d_headers; a later copy its own, in a_headers), bodies slices of one bytea.
  // Each array parsed and unnested costs the server CPU, so what a group would send over and over
  // is left out: an empty d_copies, d_last_at, a_first, a_hlo/a_hhi, a_reason, a_retry_after,
  // a_hints or a_job_target means the default (one copy, the received time, first copies only,
  // nulls); an empty a_id, a_trigger, a_received_at, a_signature_t or a_body_bytes means each
  // request's value is its delivery's; a one-element a_status holds every request's status.
  // Returns one row: by distinct id, its delivery's seq and whether this call inserted it; by
  // request, its attempt's seq. Never edited: a change is a new function in a new migration.
  `
  CREATE FUNCTION hookrelay_accept_group_v1(
    d_id TEXT[], d_trigger TEXT[], d_api_version TEXT[], d_known BOOLEAN[], d_received_at BIGINT[], d_signature TEXT[], d_secret_index INTEGER[],
    d_signature_t BIGINT[], d_headers TEXT[], d_hlo INTEGER[], d_hhi INTEGER[], d_bodies BYTEA, d_boff INTEGER[], d_blen INTEGER[], d_copies INTEGER[],
    d_last_at BIGINT[], with_jobs BOOLEAN,
    a_cand INTEGER[], a_first BOOLEAN[], a_id TEXT[], a_trigger TEXT[], a_received_at BIGINT[], a_finished_at BIGINT[], a_attempt_header INTEGER[],
    a_signature_t BIGINT[], a_body_sha256 TEXT[], a_body_bytes INTEGER[], a_status INTEGER[], a_reason TEXT[], a_retry_after TEXT[], a_hints TEXT[],
    a_headers TEXT[], a_hlo INTEGER[], a_hhi INTEGER[], a_job_target TEXT[]
  ) RETURNS TABLE (out_seqs BIGINT[], out_fresh BOOLEAN[], out_attempts BIGINT[])
  LANGUAGE plpgsql VOLATILE AS $fn$
  DECLARE
    n_ids INTEGER := cardinality(d_id);
    new_ids TEXT[];
    new_seqs BIGINT[];
    done_n BIGINT[];
    done_att BIGINT[];
    old_ids TEXT[];
    old_seqs BIGINT[];
    rest_n BIGINT[];
    rest_att BIGINT[];
    seqs BIGINT[];
    fresh BOOLEAN[];
  BEGIN
    -- The transaction id before any seq is drawn: the bridge's commit-order horizon relies on it.
    PERFORM pg_current_xact_id();
    -- One statement for a group whose ids are all new (the common case): the deliveries, one row per
    -- distinct id in the order given (every group locks new ids in one order; later copies of an id
    -- are counted on its new row), and the attempt of every request whose id was inserted, in the
    -- group's order, with the relay job of each first copy.
    WITH ins AS (
      INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body,
        duplicate_count, last_attempt_at)
      SELECT u.id, u.trigger, u.api_version, u.known, u.received_at, u.signature, u.secret_index, u.signature_t, d_headers[u.hlo:u.hhi],
        substring(d_bodies FROM u.boff FOR u.blen), coalesce(u.copies, 1) - 1, coalesce(u.last_at, u.received_at)
      FROM unnest(d_id, d_trigger, d_api_version, d_known, d_received_at, d_signature, d_secret_index, d_signature_t, d_hlo, d_hhi, d_boff, d_blen,
          d_copies, d_last_at) WITH ORDINALITY AS u(id, trigger, api_version, known, received_at, signature, secret_index, signature_t, hlo, hhi, boff, blen,
          copies, last_at, n)
      ORDER BY u.n
      ON CONFLICT (id) DO NOTHING
      RETURNING deliveries.seq, deliveries.id, deliveries.trigger, deliveries.received_at, deliveries.signature_t, octet_length(deliveries.raw_body) AS bytes
    ), cands AS (
      SELECT c.id, c.n FROM unnest(d_id) WITH ORDINALITY AS c(id, n)
    ), mine AS (
      SELECT r.n, r.finished_at, r.attempt_header, r.body_sha256, r.reason, r.retry_after, r.hints, r.hlo, r.hhi, r.job_target, ins.seq AS dseq,
        coalesce(r.first, true) AS acc,
        CASE WHEN cardinality(a_id) = 0 THEN ins.id ELSE r.id END AS id,
        CASE WHEN cardinality(a_trigger) = 0 THEN ins.trigger ELSE r.trigger END AS trigger,
        CASE WHEN cardinality(a_received_at) = 0 THEN ins.received_at ELSE r.received_at END AS received_at,
        CASE WHEN cardinality(a_signature_t) = 0 THEN ins.signature_t ELSE r.signature_t END AS signature_t,
        CASE WHEN cardinality(a_body_bytes) = 0 THEN ins.bytes ELSE r.body_bytes END AS body_bytes,
        CASE WHEN cardinality(a_status) = 1 THEN a_status[1] ELSE r.status END AS status
      FROM unnest(a_cand, a_first, a_id, a_trigger, a_received_at, a_finished_at, a_attempt_header, a_signature_t, a_body_sha256, a_body_bytes, a_status,
          a_reason, a_retry_after, a_hints, a_hlo, a_hhi, a_job_target) WITH ORDINALITY
        AS r(cand, first, id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, status, reason, retry_after, hints, hlo, hhi,
          job_target, n)
      JOIN cands ON cands.n = r.cand
      JOIN ins ON ins.id = cands.id
    ), jobs AS (
      INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at, target)
      SELECT mine.dseq, 'pending', mine.received_at, mine.received_at, mine.job_target FROM mine WHERE with_jobs AND mine.acc
    ), att AS (
      INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status,
        reason, retry_after, hints, request_headers)
      SELECT mine.dseq, mine.id, mine.trigger, mine.received_at, mine.finished_at, mine.attempt_header, mine.signature_t, mine.body_sha256, mine.body_bytes,
        CASE WHEN mine.acc THEN 'accepted' ELSE 'duplicate' END, mine.status, mine.reason, mine.retry_after, mine.hints,
        CASE WHEN mine.acc THEN NULL ELSE a_headers[mine.hlo:mine.hhi] END
      FROM mine ORDER BY mine.n
      RETURNING attempts.seq
    )
    SELECT (SELECT coalesce(array_agg(ins.id ORDER BY ins.seq), '{}') FROM ins), (SELECT coalesce(array_agg(ins.seq ORDER BY ins.seq), '{}') FROM ins),
      (SELECT coalesce(array_agg(mine.n ORDER BY mine.n), '{}') FROM mine), (SELECT coalesce(array_agg(att.seq ORDER BY att.seq), '{}') FROM att)
    INTO new_ids, new_seqs, done_n, done_att;
    IF cardinality(new_ids) = n_ids THEN
      -- One backend draws each identity in insertion order, which is the order given: the i-th
      -- smallest seq is the i-th id's, and the i-th smallest attempt seq the i-th request's.
      RETURN QUERY SELECT new_seqs, array_fill(true, ARRAY[n_ids]), done_att;
      RETURN;
    END IF;
    -- Ids stored already (by an earlier group, or another instance whose transaction ON CONFLICT
    -- waited for): every copy is a duplicate. This statement's snapshot sees those rows; they are
    -- locked in id order, so two groups counting the same ids never wait on each other in a cycle.
    WITH missing AS (
      SELECT m.id, coalesce(m.copies, 1) AS copies, coalesce(m.last_at, m.received_at) AS last_at
      FROM unnest(d_id, d_copies, d_last_at, d_received_at) AS m(id, copies, last_at, received_at)
      LEFT JOIN unnest(new_ids) AS x(id) ON x.id = m.id WHERE x.id IS NULL
    ), locked AS (
      SELECT d.seq, d.id FROM deliveries d WHERE d.id IN (SELECT missing.id FROM missing) ORDER BY d.id FOR UPDATE
    ), dup AS (
      UPDATE deliveries d SET duplicate_count = d.duplicate_count + missing.copies, last_attempt_at = missing.last_at
      FROM locked JOIN missing ON missing.id = locked.id
      WHERE d.seq = locked.seq
      RETURNING d.seq, d.id
    )
    SELECT coalesce(array_agg(dup.id), '{}'), coalesce(array_agg(dup.seq), '{}') INTO old_ids, old_seqs FROM dup;
    IF cardinality(new_ids) + cardinality(old_ids) < n_ids THEN
      RAISE EXCEPTION 'a delivery was deleted while a copy of it was recorded';
    END IF;
    SELECT array_agg(k.seq ORDER BY c.n), array_agg(k.fresh ORDER BY c.n) INTO seqs, fresh
    FROM unnest(d_id) WITH ORDINALITY AS c(id, n)
    JOIN unnest(new_ids || old_ids, new_seqs || old_seqs, array_fill(true, ARRAY[cardinality(new_ids)]) || array_fill(false, ARRAY[cardinality(old_ids)]))
      AS k(id, seq, fresh) ON k.id = c.id;
    -- The attempts of the other requests, all duplicates of stored ids, in the group's order.
    WITH rest AS (
      SELECT r.n, r.cand, coalesce(r.first, true) AS first, r.finished_at, r.attempt_header, r.body_sha256, r.reason, r.retry_after, r.hints, r.hlo, r.hhi,
        CASE WHEN cardinality(a_id) = 0 THEN d_id[r.cand] ELSE r.id END AS id,
        CASE WHEN cardinality(a_trigger) = 0 THEN d_trigger[r.cand] ELSE r.trigger END AS trigger,
        CASE WHEN cardinality(a_received_at) = 0 THEN d_received_at[r.cand] ELSE r.received_at END AS received_at,
        CASE WHEN cardinality(a_signature_t) = 0 THEN d_signature_t[r.cand] ELSE r.signature_t END AS signature_t,
        CASE WHEN cardinality(a_body_bytes) = 0 THEN d_blen[r.cand] ELSE r.body_bytes END AS body_bytes,
        CASE WHEN cardinality(a_status) = 1 THEN a_status[1] ELSE r.status END AS status
      FROM unnest(a_cand, a_first, a_id, a_trigger, a_received_at, a_finished_at, a_attempt_header, a_signature_t, a_body_sha256, a_body_bytes, a_status,
          a_reason, a_retry_after, a_hints, a_hlo, a_hhi) WITH ORDINALITY
        AS r(cand, first, id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, status, reason, retry_after, hints, hlo, hhi, n)
      LEFT JOIN unnest(done_n) AS done(n) ON done.n = r.n
      WHERE done.n IS NULL
    ), att AS (
      INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status,
        reason, retry_after, hints, request_headers)
      SELECT seqs[rest.cand], rest.id, rest.trigger, rest.received_at, rest.finished_at, rest.attempt_header, rest.signature_t, rest.body_sha256, rest.body_bytes,
        'duplicate', rest.status, rest.reason, rest.retry_after, rest.hints,
        CASE WHEN rest.first THEN d_headers[d_hlo[rest.cand]:d_hhi[rest.cand]] ELSE a_headers[rest.hlo:rest.hhi] END
      FROM rest ORDER BY rest.n
      RETURNING attempts.seq
    )
    SELECT (SELECT coalesce(array_agg(rest.n ORDER BY rest.n), '{}') FROM rest), (SELECT coalesce(array_agg(att.seq ORDER BY att.seq), '{}') FROM att)
    INTO rest_n, rest_att;
    RETURN QUERY
    SELECT seqs, fresh, (SELECT array_agg(x.s ORDER BY x.n) FROM (SELECT * FROM unnest(done_n, done_att) UNION ALL SELECT * FROM unnest(rest_n, rest_att)) AS x(n, s));
  END
  $fn$;
  `,
  // 7: claims held by heartbeat (pg-instance-heartbeat.ts): a row per instance that claims relay
  // jobs, renewed while it lives; its jobs, found by their claimant when it stops cleanly.
  `
  CREATE TABLE relay_instances (
    id TEXT PRIMARY KEY,
    alive_until BIGINT NOT NULL
  );
  CREATE INDEX relay_jobs_by_claimant ON relay_jobs (leased_by) WHERE leased_by IS NOT NULL;
  `,
  // 8: fan-out and order (issue 41). A delivery has one relay job per target, named by the two
  // (relayJobKey in core/records.ts: delivery_seq and coalesce(target, '')): the primary key on
  // delivery_seq gives way to a unique index on the pair. `job_n`: the job's place among its
  // delivery's jobs, as queued (every job before this migration is its delivery's only one: 1).
  // `order_key`: the key of a job for an ordered target (`--pace … order=`), null otherwise; the two
  // partial indexes serve "an earlier job of my target and key is owed (or dead)", as SQLite's
  // migration 7, and never walk done rows. Adding the columns rewrites nothing (constant default);
  // the unique index is built under the table's lock, once, by the instance that migrates.
  // hookrelay_accept_group_v2 writes a group's jobs with their targets and keys; v1 stays (migration
  // 6) so that an instance of the previous build still running during a rolling upgrade keeps
  // accepting: its one job a delivery, with no key, fits this table. Such an instance claims and
  // moves jobs by delivery_seq alone, so it must be stopped before any instance is given several
  // targets or an order (--also, a route of several URLs, order=); an older build started after
  // this migration is refused at start (the schema is newer than it understands, migratePostgres and
  // checkPostgresSchema).
  `
  ALTER TABLE relay_jobs DROP CONSTRAINT relay_jobs_pkey;
  ALTER TABLE relay_jobs ALTER COLUMN delivery_seq SET NOT NULL;
  ALTER TABLE relay_jobs ADD COLUMN job_n INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE relay_jobs ADD COLUMN order_key TEXT;
  CREATE UNIQUE INDEX relay_jobs_by_delivery ON relay_jobs (delivery_seq, (coalesce(target, '')));
  CREATE INDEX relay_jobs_owed_by_order_key ON relay_jobs (target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state IN ('pending', 'held');
  CREATE INDEX relay_jobs_dead_by_order_key ON relay_jobs (target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state = 'dead';
  -- As v1 (migration 6), but the relay jobs come as their own parallel arrays, one entry per job:
  -- j_cand, the position in d_* of the delivery it is queued with (its job is written only when this
  -- call inserts that delivery), j_target and j_order_key (empty: all null). A delivery's jobs are
  -- given in the order queued. v1's with_jobs and a_job_target are gone: no entry, no job.
  CREATE FUNCTION hookrelay_accept_group_v2(
    d_id TEXT[], d_trigger TEXT[], d_api_version TEXT[], d_known BOOLEAN[], d_received_at BIGINT[], d_signature TEXT[], d_secret_index INTEGER[],
    d_signature_t BIGINT[], d_headers TEXT[], d_hlo INTEGER[], d_hhi INTEGER[], d_bodies BYTEA, d_boff INTEGER[], d_blen INTEGER[], d_copies INTEGER[],
    d_last_at BIGINT[],
    a_cand INTEGER[], a_first BOOLEAN[], a_id TEXT[], a_trigger TEXT[], a_received_at BIGINT[], a_finished_at BIGINT[], a_attempt_header INTEGER[],
    a_signature_t BIGINT[], a_body_sha256 TEXT[], a_body_bytes INTEGER[], a_status INTEGER[], a_reason TEXT[], a_retry_after TEXT[], a_hints TEXT[],
    a_headers TEXT[], a_hlo INTEGER[], a_hhi INTEGER[],
    j_cand INTEGER[], j_target TEXT[], j_order_key TEXT[]
  ) RETURNS TABLE (out_seqs BIGINT[], out_fresh BOOLEAN[], out_attempts BIGINT[])
  LANGUAGE plpgsql VOLATILE AS $fn$
  DECLARE
    n_ids INTEGER := cardinality(d_id);
    new_ids TEXT[];
    new_seqs BIGINT[];
    done_n BIGINT[];
    done_att BIGINT[];
    old_ids TEXT[];
    old_seqs BIGINT[];
    rest_n BIGINT[];
    rest_att BIGINT[];
    seqs BIGINT[];
    fresh BOOLEAN[];
  BEGIN
    -- The transaction id before any seq is drawn: the commit-order horizon relies on it (pg-settled-horizon.ts).
    PERFORM pg_current_xact_id();
    WITH ins AS (
      INSERT INTO deliveries (id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body,
        duplicate_count, last_attempt_at)
      SELECT u.id, u.trigger, u.api_version, u.known, u.received_at, u.signature, u.secret_index, u.signature_t, d_headers[u.hlo:u.hhi],
        substring(d_bodies FROM u.boff FOR u.blen), coalesce(u.copies, 1) - 1, coalesce(u.last_at, u.received_at)
      FROM unnest(d_id, d_trigger, d_api_version, d_known, d_received_at, d_signature, d_secret_index, d_signature_t, d_hlo, d_hhi, d_boff, d_blen,
          d_copies, d_last_at) WITH ORDINALITY AS u(id, trigger, api_version, known, received_at, signature, secret_index, signature_t, hlo, hhi, boff, blen,
          copies, last_at, n)
      ORDER BY u.n
      ON CONFLICT (id) DO NOTHING
      RETURNING deliveries.seq, deliveries.id, deliveries.trigger, deliveries.received_at, deliveries.signature_t, octet_length(deliveries.raw_body) AS bytes
    ), cands AS (
      SELECT c.id, c.n FROM unnest(d_id) WITH ORDINALITY AS c(id, n)
    ), mine AS (
      SELECT r.n, r.cand, r.finished_at, r.attempt_header, r.body_sha256, r.reason, r.retry_after, r.hints, r.hlo, r.hhi, ins.seq AS dseq,
        coalesce(r.first, true) AS acc,
        CASE WHEN cardinality(a_id) = 0 THEN ins.id ELSE r.id END AS id,
        CASE WHEN cardinality(a_trigger) = 0 THEN ins.trigger ELSE r.trigger END AS trigger,
        CASE WHEN cardinality(a_received_at) = 0 THEN ins.received_at ELSE r.received_at END AS received_at,
        CASE WHEN cardinality(a_signature_t) = 0 THEN ins.signature_t ELSE r.signature_t END AS signature_t,
        CASE WHEN cardinality(a_body_bytes) = 0 THEN ins.bytes ELSE r.body_bytes END AS body_bytes,
        CASE WHEN cardinality(a_status) = 1 THEN a_status[1] ELSE r.status END AS status
      FROM unnest(a_cand, a_first, a_id, a_trigger, a_received_at, a_finished_at, a_attempt_header, a_signature_t, a_body_sha256, a_body_bytes, a_status,
          a_reason, a_retry_after, a_hints, a_hlo, a_hhi) WITH ORDINALITY
        AS r(cand, first, id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, status, reason, retry_after, hints, hlo, hhi, n)
      JOIN cands ON cands.n = r.cand
      JOIN ins ON ins.id = cands.id
    ), jobs AS (
      -- Each job of a delivery this call inserted, due when its first copy arrived.
      INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at, target, order_key, job_n)
      SELECT mine.dseq, 'pending', mine.received_at, mine.received_at, j.target, j.order_key, row_number() OVER (PARTITION BY j.cand ORDER BY j.n)
      FROM unnest(j_cand, j_target, j_order_key) WITH ORDINALITY AS j(cand, target, order_key, n)
      JOIN mine ON mine.cand = j.cand AND mine.acc
    ), att AS (
      INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status,
        reason, retry_after, hints, request_headers)
      SELECT mine.dseq, mine.id, mine.trigger, mine.received_at, mine.finished_at, mine.attempt_header, mine.signature_t, mine.body_sha256, mine.body_bytes,
        CASE WHEN mine.acc THEN 'accepted' ELSE 'duplicate' END, mine.status, mine.reason, mine.retry_after, mine.hints,
        CASE WHEN mine.acc THEN NULL ELSE a_headers[mine.hlo:mine.hhi] END
      FROM mine ORDER BY mine.n
      RETURNING attempts.seq
    )
    SELECT (SELECT coalesce(array_agg(ins.id ORDER BY ins.seq), '{}') FROM ins), (SELECT coalesce(array_agg(ins.seq ORDER BY ins.seq), '{}') FROM ins),
      (SELECT coalesce(array_agg(mine.n ORDER BY mine.n), '{}') FROM mine), (SELECT coalesce(array_agg(att.seq ORDER BY att.seq), '{}') FROM att)
    INTO new_ids, new_seqs, done_n, done_att;
    IF cardinality(new_ids) = n_ids THEN
      RETURN QUERY SELECT new_seqs, array_fill(true, ARRAY[n_ids]), done_att;
      RETURN;
    END IF;
    WITH missing AS (
      SELECT m.id, coalesce(m.copies, 1) AS copies, coalesce(m.last_at, m.received_at) AS last_at
      FROM unnest(d_id, d_copies, d_last_at, d_received_at) AS m(id, copies, last_at, received_at)
      LEFT JOIN unnest(new_ids) AS x(id) ON x.id = m.id WHERE x.id IS NULL
    ), locked AS (
      SELECT d.seq, d.id FROM deliveries d WHERE d.id IN (SELECT missing.id FROM missing) ORDER BY d.id FOR UPDATE
    ), dup AS (
      UPDATE deliveries d SET duplicate_count = d.duplicate_count + missing.copies, last_attempt_at = missing.last_at
      FROM locked JOIN missing ON missing.id = locked.id
      WHERE d.seq = locked.seq
      RETURNING d.seq, d.id
    )
    SELECT coalesce(array_agg(dup.id), '{}'), coalesce(array_agg(dup.seq), '{}') INTO old_ids, old_seqs FROM dup;
    IF cardinality(new_ids) + cardinality(old_ids) < n_ids THEN
      RAISE EXCEPTION 'a delivery was deleted while a copy of it was recorded';
    END IF;
    SELECT array_agg(k.seq ORDER BY c.n), array_agg(k.fresh ORDER BY c.n) INTO seqs, fresh
    FROM unnest(d_id) WITH ORDINALITY AS c(id, n)
    JOIN unnest(new_ids || old_ids, new_seqs || old_seqs, array_fill(true, ARRAY[cardinality(new_ids)]) || array_fill(false, ARRAY[cardinality(old_ids)]))
      AS k(id, seq, fresh) ON k.id = c.id;
    WITH rest AS (
      SELECT r.n, r.cand, coalesce(r.first, true) AS first, r.finished_at, r.attempt_header, r.body_sha256, r.reason, r.retry_after, r.hints, r.hlo, r.hhi,
        CASE WHEN cardinality(a_id) = 0 THEN d_id[r.cand] ELSE r.id END AS id,
        CASE WHEN cardinality(a_trigger) = 0 THEN d_trigger[r.cand] ELSE r.trigger END AS trigger,
        CASE WHEN cardinality(a_received_at) = 0 THEN d_received_at[r.cand] ELSE r.received_at END AS received_at,
        CASE WHEN cardinality(a_signature_t) = 0 THEN d_signature_t[r.cand] ELSE r.signature_t END AS signature_t,
        CASE WHEN cardinality(a_body_bytes) = 0 THEN d_blen[r.cand] ELSE r.body_bytes END AS body_bytes,
        CASE WHEN cardinality(a_status) = 1 THEN a_status[1] ELSE r.status END AS status
      FROM unnest(a_cand, a_first, a_id, a_trigger, a_received_at, a_finished_at, a_attempt_header, a_signature_t, a_body_sha256, a_body_bytes, a_status,
          a_reason, a_retry_after, a_hints, a_hlo, a_hhi) WITH ORDINALITY
        AS r(cand, first, id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, status, reason, retry_after, hints, hlo, hhi, n)
      LEFT JOIN unnest(done_n) AS done(n) ON done.n = r.n
      WHERE done.n IS NULL
    ), att AS (
      INSERT INTO attempts (delivery_seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status,
        reason, retry_after, hints, request_headers)
      SELECT seqs[rest.cand], rest.id, rest.trigger, rest.received_at, rest.finished_at, rest.attempt_header, rest.signature_t, rest.body_sha256, rest.body_bytes,
        'duplicate', rest.status, rest.reason, rest.retry_after, rest.hints,
        CASE WHEN rest.first THEN d_headers[d_hlo[rest.cand]:d_hhi[rest.cand]] ELSE a_headers[rest.hlo:rest.hhi] END
      FROM rest ORDER BY rest.n
      RETURNING attempts.seq
    )
    SELECT (SELECT coalesce(array_agg(rest.n ORDER BY rest.n), '{}') FROM rest), (SELECT coalesce(array_agg(att.seq ORDER BY att.seq), '{}') FROM att)
    INTO rest_n, rest_att;
    RETURN QUERY
    SELECT seqs, fresh, (SELECT array_agg(x.s ORDER BY x.n) FROM (SELECT * FROM unnest(done_n, done_att) UNION ALL SELECT * FROM unnest(rest_n, rest_att)) AS x(n, s));
  END
  $fn$;
  `,
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The oldest schema a reading command reads without migrating it: 3 lacks only the relay tries'
 * kept answers (migration 4), which then read as not kept, as on an older SQLite file.
 */
export const PG_OLDEST_READABLE_VERSION = 3;

/**
 * Brings the current schema (the connection's search_path) up to `through` (default
 * PG_SCHEMA_VERSION; a test makes an older schema with a lower one) under the advisory lock;
 * refuses a schema made by a newer hookrelay.
 */
export async function migratePostgres(client: PoolClient, through = PG_SCHEMA_VERSION): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS hookrelay_schema (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM hookrelay_schema');
    const current = rows[0]?.version ?? 0;
    if (current > PG_SCHEMA_VERSION) {
      throw new Error(
        `the database is at schema version ${current}, newer than this hookrelay understands (${PG_SCHEMA_VERSION}); upgrade hookrelay or use another --store`,
      );
    }
    for (let version = current; version < Math.min(through, PG_SCHEMA_VERSION); version++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version]!);
        await client.query('DELETE FROM hookrelay_schema');
        await client.query('INSERT INTO hookrelay_schema (version) VALUES ($1)', [version + 1]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => {});
  }
}

/**
 * For reading commands: checks the schema without changing anything (no table is created, no lock
 * taken), so a read-only role, a standby or a mistyped database is never written to. Returns its
 * version: PG_SCHEMA_VERSION, or as old as PG_OLDEST_READABLE_VERSION; refuses any other.
 */
export async function checkPostgresSchema(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('hookrelay_schema') IS NOT NULL AS exists");
  if (!rows[0]?.exists) throw new NoStoreError('this database holds no hookrelay store (no hookrelay_schema table): start `hookrelay listen --store` on it first, or check the URL');
  const version = (await client.query<{ version: number }>('SELECT version FROM hookrelay_schema')).rows[0]?.version ?? 0;
  if (version > PG_SCHEMA_VERSION) throw new Error(`the database is at schema version ${version}, newer than this hookrelay understands (${PG_SCHEMA_VERSION}); upgrade hookrelay`);
  if (version < PG_OLDEST_READABLE_VERSION) throw new Error(`the database is at schema version ${version}, older than this hookrelay reads (${PG_OLDEST_READABLE_VERSION} to ${PG_SCHEMA_VERSION}); start \`hookrelay listen --store\` once to migrate it`);
  return version;
}
