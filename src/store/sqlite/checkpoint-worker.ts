/**
 * Copies the WAL into the database on its own connection and thread, so commits do not pay for
 * the bulk of it (PERFORMANCE.md): a PASSIVE checkpoint every interval, which never blocks the
 * writer. It cannot finish while intake runs (frames arrive as it copies); past a bound, the
 * writer finishes the rest between two commits so the WAL starts over (writer-worker.ts). Idle,
 * it catches up by itself.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './open-database.js';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = openDatabase(path, { busyTimeoutMs: 5000 });

// Each pass is scheduled from the end of the last, so a long pass never runs back to back with
// the next and the writer always finds gaps to take the checkpoint lock in.
let timer: NodeJS.Timeout = setTimeout(function pass() {
  try {
    db.pragma('wal_checkpoint(PASSIVE)'); // another connection's checkpoint: busy, and the next pass tries again
  } catch {
    /* an I/O error: the next pass tries again */
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
