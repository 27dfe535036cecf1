import Database from 'better-sqlite3';

export interface OpenOptions {
  readonly?: boolean;
  /** How long a statement waits on a lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/**
 * Opens the database with the durability hookrelay promises: WAL and synchronous=FULL, read
 * back and asserted (better-sqlite3's build defaults WAL to NORMAL, which may lose the last
 * commits on power loss — a 2xx must mean stored). Automatic checkpoints are off: a
 * checkpoint thread runs them outside the commit path (PERFORMANCE.md).
 */
export function openDatabase(path: string, options: OpenOptions = {}): Database.Database {
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 2000}`);
    if (options.readonly) return db;
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    db.pragma('synchronous = FULL');
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('cache_size = -8192');
    db.pragma('temp_store = MEMORY');
    // After a checkpoint resets the WAL, shrink a file that grew past this (a long reader held it).
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    const synchronous = db.pragma('synchronous', { simple: true });
    if (mode !== 'wal' || synchronous !== 2) {
      throw new Error(`durability check failed: journal_mode=${String(mode)} synchronous=${String(synchronous)} (need wal and FULL=2)`);
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
