/**
 * Copies the WAL into the database on its own connection and thread, so commits do not pay for
 * the bulk of it (PERFORMANCE.md): a PASSIVE checkpoint every interval, which never blocks the
 * writer. It cannot finish while intake runs (frames arrive as it copies); past a bound, the
 * writer finishes the rest between two commits so the WAL starts over (writer-worker.ts). Idle,
 * it catches up by itself.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './open-database.js';
import { lookAtWal, type CheckpointResult, type WalFramesCell } from './wal-frames.js';

const { path, intervalMs, walFrames } = workerData as { path: string; intervalMs: number; walFrames: WalFramesCell };
const db = openDatabase(path, { busyTimeoutMs: 5000 });

// Each pass is scheduled from the end of the last, so a long pass never runs back to back with
// the next and the writer always finds gaps to take the checkpoint lock in.
let timer: NodeJS.Timeout = setTimeout(function pass() {
  try {
    lookAtWal(walFrames, () => (db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0], false);
  } catch {
    /* busy: the next pass tries again */
  }
  timer = setTimeout(pass, intervalMs);
}, intervalMs);

parentPort!.on('message', (message: { type: string }) => {
  if (message.type === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort!.close();
  }
});
