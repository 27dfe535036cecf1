/**
 * How many frames the WAL holds, as last seen by a checkpoint, shared between the checkpoint
 * thread (which writes it after each pass) and the writer (which reads it after each commit to
 * decide whether to finish a checkpoint itself). A SharedArrayBuffer cell: no file handle on
 * `-shm` (closing one would drop every POSIX lock this process holds on it, SQLite's included).
 */
export type WalFramesCell = Int32Array;

export function createWalFramesCell(): WalFramesCell {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** The result row of `PRAGMA wal_checkpoint`: `log` frames in the WAL, `checkpointed` of them copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * Records what a checkpoint saw. `byTheWriter`: nothing was appended while it ran, so a complete
 * one means the next commit starts the WAL over (0). The thread's never says that: the writer may
 * have committed while it copied.
 */
export function recordCheckpoint(cell: WalFramesCell, result: CheckpointResult | undefined, byTheWriter: boolean): void {
  if (!result || result.log < 0) return;
  const complete = result.busy === 0 && result.checkpointed === result.log;
  Atomics.store(cell, 0, byTheWriter && complete ? 0 : result.log);
}

export const framesInWal = (cell: WalFramesCell): number => Atomics.load(cell, 0);
