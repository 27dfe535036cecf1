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

/** Takes the lock at `path` (created if absent), or returns null when another holder has it. */
export function tryKernelLock(path: string): KernelLock | null {
  const db = new Database(path, { timeout: 0 });
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
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** Whether another process holds the lock at `path` now (false when this process holds it, or nobody). */
export function heldElsewhere(path: string): boolean {
  if (heldHere.has(path)) return false;
  const probe = tryKernelLock(path);
  probe?.release();
  return probe === null;
}
