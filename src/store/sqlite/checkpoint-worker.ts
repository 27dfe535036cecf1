/**
 * Checkpoints the WAL on its own connection and thread, so no commit pays for it
 * (PERFORMANCE.md): PASSIVE every interval, RESTART once the WAL grows past a bound.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './open-database.js';

const { path, intervalMs, walLimitBytes } = workerData as { path: string; intervalMs: number; walLimitBytes: number };
const db = openDatabase(path, { busyTimeoutMs: 5000 });

function walSize(): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

const timer = setInterval(() => {
  try {
    db.pragma(walSize() > walLimitBytes ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)');
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
