/**
 * The emulator's own SQLite file (`--db`, default .hookrelay/emulator.db): WAL and
 * synchronous=FULL read back at open (the store's opener), so a committed attempt survives
 * `kill -9` and power loss. Writes are synchronous on the main thread: an emulator's load is small.
 */
import type Database from 'better-sqlite3';
import { openDatabase } from '../store/sqlite/open-database.js';

const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE webhooks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  triggers TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  status TEXT NOT NULL,
  api_version TEXT NOT NULL,
  custom_headers TEXT NOT NULL,
  signing_enabled INTEGER NOT NULL,
  secret_sealed TEXT,
  secret_hint TEXT,
  retry_policy TEXT NOT NULL,
  failure_handling TEXT NOT NULL,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  last_success_at TEXT,
  last_failure_at TEXT,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (org_id, seq);
CREATE TABLE deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  webhook_id TEXT NOT NULL,
  status TEXT NOT NULL,
  due_ms INTEGER,
  record TEXT NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (due_ms) WHERE due_ms IS NOT NULL;
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, seq);
`;

// Version 2: the Trust Center and SoD records (spec 2.10, 4.4), one JSON record per row, per organization.
const SCHEMA_V2 = `
CREATE TABLE tc_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  org_id TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX tc_records_by_org ON tc_records (org_id, kind, seq);
`;

/** Opens (and on first use creates) the emulator database. Refuses one from a newer hookrelay. */
export function openEmulatorDb(path: string): Database.Database {
  const db = openDatabase(path);
  try {
    // No checkpoint thread here: SQLite checkpoints on its own, between commits.
    db.pragma('wal_autocheckpoint = 1000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`${path} was written by a newer hookrelay (emulator schema ${version}; this one knows ${SCHEMA_VERSION})`);
    if (version < SCHEMA_VERSION) {
      db.transaction(() => {
        if (version === 0) db.exec(SCHEMA);
        db.exec(SCHEMA_V2);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })();
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
