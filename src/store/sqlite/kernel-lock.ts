/**
 * A lock the kernel holds for a process: a small SQLite file (rollback journal) kept in an open
 * `BEGIN EXCLUSIVE`. The kernel drops it when the process dies, `kill -9` included, so a stale
 * lock never blocks anyone, and no pid is ever trusted (a reused pid in a container, two processes
 * taking over one stale pid file at once). The one lock of `listen`'s store (instance-lock.ts) and
 * of a bulk replay job (relay/replay-job-journal.ts).
 */
import Database from 'better-sqlite3';

export interface KernelLock {
  release(): void;
}

/** Paths this process holds: another connection of the same process would be refused too. */
const heldHere = new Set<string>();

/**
 * How long a taker waits for a lock held for a moment: a probe's shared read (heldElsewhere) is brief,
 * and a runner must not be refused because a `status` or a scrape looked at the same instant.
 */
const TAKE_WAIT_MS = 500;

/** Takes the lock at `path` (created if absent), or returns null when another holder has it. */
export function tryKernelLock(path: string): KernelLock | null {
  const db = new Database(path, { timeout: TAKE_WAIT_MS });
  try {
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
  heldHere.add(path);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      heldHere.delete(path);
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Whether another process holds the lock at `path` now. Read-only, as every reader of a data folder
 * must be: a lock file that is not there is held by nobody, and the probe only asks for a shared read,
 * which the holder's exclusive lock refuses. False when this process holds it, or the file cannot be read.
 */
export function heldElsewhere(path: string): boolean {
  if (heldHere.has(path)) return false;
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch {
    return false;
  }
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    db.close();
  }
}
