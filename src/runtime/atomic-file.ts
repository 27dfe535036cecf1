/**
 * Writes a file whole or not at all: a temporary file beside it (0600), synced, renamed over it,
 * then the folder synced so the rename survives a crash. A failed write leaves the old file and
 * no temporary one. For the secret set, reconcile's saved cursor and a bulk replay's plan.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
  chmodSync(file, 0o600);
  try {
    const dirFd = openSync(dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    /* some file systems refuse fsync on a folder; the rename itself is atomic */
  }
}
