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
