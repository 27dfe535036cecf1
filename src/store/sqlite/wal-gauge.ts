/**
 * How much of the WAL is in use, read from the WAL index (the `-shm` file): `mxFrame`, the last
 * valid frame, sits at byte 16 of its header in the machine's byte order (SQLite file format,
 * "The WAL-Index Format"). Only a trigger for a checkpoint: any doubt reads as null.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

export interface WalGauge {
  /** Bytes of WAL frames a checkpoint has yet to make reusable, or null when unknown. */
  bytesInUse(): number | null;
  close(): void;
}

export function walGauge(dbPath: string, pageSize: number): WalGauge {
  const cell = Buffer.alloc(4);
  let fd: number | null = null;
  return {
    bytesInUse() {
      try {
        fd ??= openSync(`${dbPath}-shm`, 'r');
        if (readSync(fd, cell, 0, 4, 16) !== 4) return null;
        const frames = endianness() === 'LE' ? cell.readUInt32LE(0) : cell.readUInt32BE(0);
        return frames * (pageSize + 24);
      } catch {
        return null;
      }
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
