/**
 * The schema floor's tables (floor-server.ts, `schema` mode and the relay floors built on it), shared
 * with seed-store.ts, which fills them for the 1M scenario's floor pair.
 */
export const SCHEMA_FLOOR_TABLES = `
  CREATE TABLE IF NOT EXISTS deliveries (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, received_at INTEGER NOT NULL, headers TEXT NOT NULL, raw_body BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS attempts (seq INTEGER PRIMARY KEY, delivery_seq INTEGER, delivery_id TEXT, received_at INTEGER NOT NULL, outcome TEXT NOT NULL, status INTEGER NOT NULL)`;
