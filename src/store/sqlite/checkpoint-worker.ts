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

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* busy: the next tick tries again */
  }
}, intervalMs);

parentPort!.on('message', (message: { type: string }) => {
  if (message.type === 'close') {
    clearInterval(timer);
    db.close();
    parentPort!.close();
  }
});
