/**
 * How much of the WAL is in use, shared between the checkpoint thread and the writer (which reads
 * it after each commit to decide whether to finish a checkpoint itself). A SharedArrayBuffer: no
 * file handle on `-shm` (closing one would drop every POSIX lock this process holds on it, SQLite's
 * included).
 *
 * The last checkpoint's look gives the frames the WAL held; the writer adds the bytes it has
 * committed since. It counts every committed batch into TOTAL after its commit; a checkpoint notes
 * TOTAL as it starts (AT_LOOK), so what is committed while it copies still counts (a batch whose
 * frames the checkpoint saw but whose count came later counts twice: high, never low). TOTAL is an
 * Int32 that wraps: differences are taken modulo 2^32, which holds while less than 2 GiB is
 * committed between two looks.
 */
export type WalFramesCell = Int32Array;

const FRAMES = 0;
const AT_LOOK = 1;
const TOTAL = 2;

export function createWalFramesCell(): WalFramesCell {
  return new Int32Array(new SharedArrayBuffer(12));
}

/** The result row of `PRAGMA wal_checkpoint`: `log` frames in the WAL, `checkpointed` of them copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** Called by the writer after each commit, with the batches' packed size. */
export function countCommitted(cell: WalFramesCell, bytes: number): void {
  Atomics.add(cell, TOTAL, bytes);
}

/**
 * Runs a checkpoint and records what it saw. `byTheWriter`: nothing is committed while it runs, so
 * a complete one means the next commit starts the WAL over (0). The thread's never says that: a
 * commit may have appended frames while it copied, and TOTAL cannot tell (the writer counts a
 * batch after its commit, so a commit in flight is invisible to it).
 */
export function lookAtWal(cell: WalFramesCell, checkpoint: () => CheckpointResult | undefined, byTheWriter: boolean): void {
  const before = Atomics.load(cell, TOTAL);
  const result = checkpoint();
  if (!result || result.log < 0) return;
  const complete = result.busy === 0 && result.checkpointed === result.log;
  // FRAMES before AT_LOOK: a writer that reads the new AT_LOOK also reads the new FRAMES (an old
  // AT_LOOK with new FRAMES counts high for one commit, never low).
  Atomics.store(cell, FRAMES, byTheWriter && complete ? 0 : result.log);
  Atomics.store(cell, AT_LOOK, before);
}

/** The WAL in use, as the writer reckons it: frames at the last look plus bytes committed since. */
export function walBytesInUse(cell: WalFramesCell, frameBytes: number): number {
  const atLook = Atomics.load(cell, AT_LOOK);
  return Atomics.load(cell, FRAMES) * frameBytes + ((Atomics.load(cell, TOTAL) - atLook) | 0);
}
