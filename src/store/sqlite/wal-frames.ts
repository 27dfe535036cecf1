/**
 * How many frames the WAL holds, as last seen by a checkpoint, shared between the checkpoint
 * thread (which writes it after each pass) and the writer (which reads it after each commit to
 * decide whether to finish a checkpoint itself). A SharedArrayBuffer: no file handle on `-shm`
 * (closing one would drop every POSIX lock this process holds on it, SQLite's included).
 *
 * Slot 0 holds the frames; slot 1 counts the checkpoints recorded, so the writer knows when its own
 * count of bytes committed since the last look starts over (writer-worker.ts).
 */
export type WalFramesCell = Int32Array;

const FRAMES = 0;
const LOOKS = 1;

export function createWalFramesCell(): WalFramesCell {
  return new Int32Array(new SharedArrayBuffer(8));
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
  Atomics.store(cell, FRAMES, byTheWriter && complete ? 0 : result.log);
  Atomics.add(cell, LOOKS, 1);
}

export const framesInWal = (cell: WalFramesCell): number => Atomics.load(cell, FRAMES);

/** How many checkpoints have been recorded: it changes whenever `framesInWal` was looked at anew. */
export const checkpointLooks = (cell: WalFramesCell): number => Atomics.load(cell, LOOKS);
