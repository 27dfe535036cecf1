/**
 * The writer reads how much of the WAL is in use with `PRAGMA wal_checkpoint(NOOP)` after every
 * commit (writer-worker.ts). An SQLite that did not know NOOP would run its default, a PASSIVE
 * checkpoint, after every commit instead: this holds the bundled SQLite to reading without copying.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dir.js';

type CheckpointResult = { busy: number; log: number; checkpointed: number };

describe('wal_checkpoint(NOOP), as the writer uses it', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

  it('reports the frames in use, counts another connection’s, and copies none of them', () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const path = join(dir, 'noop.db');
    const writer = new Database(path);
    cleanups.push(() => writer.close());
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE t (x BLOB)');
    const noop = writer.prepare<[], CheckpointResult>('PRAGMA wal_checkpoint(NOOP)');
    const before = noop.get()!;

    const other = new Database(path);
    cleanups.push(() => other.close());
    other.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024));
    const after = noop.get()!;
    expect(after.busy).toBe(0);
    expect(after.log).toBeGreaterThanOrEqual(before.log + 16); // 64 KiB: at least 16 pages of 4 KiB
    expect(after.checkpointed).toBe(before.checkpointed); // nothing copied
    expect(noop.get()!.checkpointed).toBe(before.checkpointed); // not even on a second look

    const passive = writer.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    expect(passive[0]!.checkpointed).toBe(after.log); // a real checkpoint does copy them
    writer.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(10));
    expect(noop.get()!.log).toBeLessThan(after.log); // and the next commit started the WAL over
  });
});
