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
    if (walSize() > walLimitBytes) {
      // RESTART holds new writers back while it waits for readers: it must not wait at all, or
      // an open console query would turn intake into 503s. Busy now: the next tick tries again.
      db.pragma('busy_timeout = 0');
      try {
        db.pragma('wal_checkpoint(RESTART)');
      } finally {
        db.pragma('busy_timeout = 5000');
      }
    } else {
      db.pragma('wal_checkpoint(PASSIVE)');
    }
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
