import type Database from 'better-sqlite3';

/**
 * Versioned migrations, applied in order inside one transaction each; `PRAGMA user_version`
 * records how many have run. Append only: never edit a migration that has shipped.
 */
const MIGRATIONS: readonly string[] = [
  // 1: deliveries, attempts.
  `
  CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY,
    id_key INTEGER NOT NULL,
    id TEXT NOT NULL,
    trigger TEXT NOT NULL,
    api_version TEXT NOT NULL,
    api_version_known INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    signature TEXT NOT NULL,
    secret_index INTEGER,
    signature_t INTEGER,
    headers TEXT NOT NULL,
    raw_body BLOB NOT NULL,
    duplicate_count INTEGER NOT NULL DEFAULT 0,
    last_attempt_at INTEGER NOT NULL
  );
  CREATE INDEX deliveries_by_key ON deliveries(id_key);
  CREATE TABLE attempts (
    seq INTEGER PRIMARY KEY,
    delivery_seq INTEGER,
    delivery_key INTEGER,
    delivery_id TEXT,
    trigger TEXT,
    received_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    attempt_header INTEGER,
    signature_t INTEGER,
    body_sha256 TEXT NOT NULL,
    body_bytes INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    status INTEGER,
    reason TEXT,
    retry_after TEXT
  );
  -- Accepted and duplicate attempts point at their delivery: appended in seq order, cheap.
  CREATE INDEX attempts_by_delivery ON attempts(delivery_seq) WHERE delivery_seq IS NOT NULL;
  -- Attempts that stored nothing (rejected, faulted) are found by the id they claimed.
  CREATE INDEX attempts_by_claimed_key ON attempts(delivery_key) WHERE delivery_seq IS NULL;
  `,
  // 2: the relay outbox (one job per accepted delivery, written in the accepting transaction) and its history.
  `
  CREATE TABLE relay_jobs (
    delivery_seq INTEGER PRIMARY KEY,
    state TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX relay_jobs_due ON relay_jobs(next_at) WHERE state = 'pending';
  CREATE TABLE relay_attempts (
    seq INTEGER PRIMARY KEY,
    delivery_seq INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    status INTEGER,
    error TEXT,
    replay INTEGER NOT NULL,
    target TEXT NOT NULL,
    try INTEGER NOT NULL
  );
  CREATE INDEX relay_attempts_by_delivery ON relay_attempts(delivery_seq);
  `,
  // 3: the bridge's subscriber cursors, and a floor under new delivery seqs. Without AUTOINCREMENT
  // SQLite gives a new row max(seq) + 1, so deleting the newest deliveries (a prune of an idle
  // store, `events delete`) would hand their seqs out again, below cursors that already passed
  // them: the writer assigns max(max(seq), floor) + 1 and raises the floor on every delete.
  `
  CREATE TABLE bridge_subscribers (
    name TEXT PRIMARY KEY,
    acked_seq INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE store_meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO store_meta (key, value) SELECT 'delivery_seq_floor', coalesce(max(seq), 0) FROM deliveries;
  `,
  // 4: what a rejected or faulted attempt sent (issue 13, item 8): its header lines and raw body
  // (a duplicate: its header lines), and the hints on why it was rejected (JSON array). Last in the
  // row, so reading the other columns never touches a body's overflow pages; removed with the attempt.
  `
  ALTER TABLE attempts ADD COLUMN hints TEXT;
  ALTER TABLE attempts ADD COLUMN request_headers TEXT;
  ALTER TABLE attempts ADD COLUMN request_body BLOB;
  `,
  // 5: what the target answered to each relay try (issue 13, item 13): how many header lines it had
  // and its body's size as seen, its header lines (the first 100, JSON [[name, value], …]) and the
  // first 4 KiB of its body. Last in the row, the body last of all, so reading a try's status never
  // touches their overflow pages; null for a try without an answer, and for those recorded before.
  `
  ALTER TABLE relay_attempts ADD COLUMN answer_header_lines INTEGER;
  ALTER TABLE relay_attempts ADD COLUMN answer_body_bytes INTEGER;
  ALTER TABLE relay_attempts ADD COLUMN answer_complete INTEGER;
  ALTER TABLE relay_attempts ADD COLUMN answer_headers TEXT;
  ALTER TABLE relay_attempts ADD COLUMN answer_body BLOB;
  `,
  // 6: the target each relay job was queued for (issue 36, item 7): a job belongs to it, and a run
  // that forwards elsewhere holds it (state 'held') instead of handing it to another app. Null for
  // jobs queued before: they go to the current --forward-to, as they did.
  `
  ALTER TABLE relay_jobs ADD COLUMN target TEXT;
  `,
  // 7: the order key of a job whose target is ordered (issue 41, item 4: \`--pace 'URL order=…'\`): a
  // job is due only while no earlier job of its target and key is owed. Null: not ordered.
  `
  ALTER TABLE relay_jobs ADD COLUMN order_key TEXT;
  -- Only the rows the order waits on: a key's done jobs pile up for the retention period, and a read
  -- that walked them before reaching its owed head grew with each one.
  CREATE INDEX relay_jobs_owed_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state IN ('pending', 'held');
  CREATE INDEX relay_jobs_dead_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state = 'dead';
  `,
  // 8: one relay job per delivery and target (fan-out, issue 41), named by the two: the table is
  // rebuilt, as SQLite cannot change a primary key in place. A job's own seq keeps the order its
  // delivery's jobs were queued in; every job so far keeps its delivery's seq as its own, so it
  // keeps its place. A delivery has at most one job with no target (queued before targets were
  // kept, and then its only job): a UNIQUE index lets NULLs repeat, the writer never does.
  `
  CREATE TABLE relay_jobs_by_target (
    job_seq INTEGER PRIMARY KEY,
    delivery_seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    updated_at INTEGER NOT NULL,
    target TEXT,
    order_key TEXT
  );
  INSERT INTO relay_jobs_by_target (job_seq, delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, order_key)
    SELECT delivery_seq, delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, order_key FROM relay_jobs ORDER BY delivery_seq;
  DROP TABLE relay_jobs;
  ALTER TABLE relay_jobs_by_target RENAME TO relay_jobs;
  CREATE UNIQUE INDEX relay_jobs_by_delivery ON relay_jobs(delivery_seq, target);
  CREATE INDEX relay_jobs_due ON relay_jobs(next_at) WHERE state = 'pending';
  CREATE INDEX relay_jobs_owed_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state IN ('pending', 'held');
  CREATE INDEX relay_jobs_dead_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state = 'dead';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to SCHEMA_VERSION; refuses a database made by a newer hookrelay. `upTo`:
 * stop at that version (tests build the file an older hookrelay made).
 */
export function migrate(db: Database.Database, upTo = SCHEMA_VERSION): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `the database is at schema version ${current}, newer than this hookrelay understands (${SCHEMA_VERSION}); upgrade hookrelay or use another --db`,
    );
  }
  for (let version = current; version < Math.min(upTo, SCHEMA_VERSION); version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
