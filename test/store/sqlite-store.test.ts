import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';
import { describeRelayContract, describeRetentionContract, describeStoreContract } from './store-contract.js';

const dirs: Array<() => void> = [];
afterEach(() => dirs.splice(0).forEach((remove) => remove()));
function dbPath(): string {
  const t = tempDir();
  dirs.push(t.remove);
  return join(t.dir, 'nested', 'hookrelay.db');
}

describeStoreContract('sqlite', (options) => createSqliteStore(dbPath(), options));
describeRelayContract('sqlite', (options) => createSqliteStore(dbPath(), options));
describeRetentionContract('sqlite', (options) => createSqliteStore(dbPath(), options));

describe('sqlite store', () => {
  it('runs in WAL with synchronous=FULL, read back from the file', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path);
    await store.close();
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('keeps what it acknowledged across a close and reopen', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path);
    const delivery = makeDelivery();
    await store.accept(delivery, attemptFor(delivery));
    await store.close();
    const again = await createSqliteStore(path);
    const stored = await again.getDelivery(delivery.id);
    expect(Buffer.from(stored!.rawBody).equals(delivery.rawBody)).toBe(true);
    expect((await again.accept(delivery, attemptFor(delivery))).outcome).toBe('duplicate');
    await again.close();
  });

  it('answers unavailable once a write is not committed within the write timeout', async () => {
    // A slow disk: every commit takes 400 ms, the write timeout is 100 ms.
    const store = await createSqliteStore(dbPath(), { writeTimeoutMs: 100, commitDelayMs: 400 });
    const delivery = makeDelivery();
    // Answered by the timeout: had the commit come first, the accept would have succeeded.
    await expect(store.accept(delivery, attemptFor(delivery))).rejects.toThrow(/not committed within 100 ms/);
    await store.close();
  });

  it('answers unavailable, and stores nothing, while another process holds the write lock', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path, { writeTimeoutMs: 10_000 });
    const blocker = new Database(path);
    blocker.pragma('busy_timeout = 0');
    blocker.exec('BEGIN EXCLUSIVE');
    const delivery = makeDelivery();
    await expect(store.accept(delivery, attemptFor(delivery))).rejects.toBeInstanceOf(StoreUnavailableError);
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(await store.getDelivery(delivery.id)).toBeUndefined();
    // Recovers without a restart once the lock is gone.
    expect((await store.accept(delivery, attemptFor(delivery))).outcome).toBe('accepted');
    await store.close();
  });

  it('prunes in chunks across many rows, and reports each commit', async () => {
    const commits: Array<{ ms: number; size: number; ok: boolean }> = [];
    const store = await createSqliteStore(dbPath(), { onCommit: (c) => commits.push(c) });
    const old = Array.from({ length: 1234 }, () => makeDelivery({ receivedAt: 1_000 }));
    await Promise.all(old.map((d) => store.accept(d, attemptFor(d, { receivedAt: 1_000 }))));
    await Promise.all(old.slice(0, 700).map((d) => store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, receivedAt: 1_000 }))));
    const fresh = makeDelivery({ receivedAt: 5_000 });
    await store.accept(fresh, attemptFor(fresh, { receivedAt: 5_000 }));
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.reduce((n, c) => n + c.size, 0)).toBe(1234 + 700 + 1);
    expect(commits.every((c) => c.ok && c.ms >= 0)).toBe(true);
    expect(await store.prune(2_000)).toEqual({ before: 2_000, deliveries: 1234, attempts: 1934, relayAttempts: 0, keptPending: 0, dryRun: false });
    expect((await store.stats()).deliveries).toBe(1);
    expect(await store.getDelivery(fresh.id)).toBeDefined();
    await store.close();
  });

  it('refuses a database from a newer hookrelay', async () => {
    const path = dbPath();
    (await createSqliteStore(path)).close();
    await new Promise((r) => setImmediate(r));
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    await expect(createSqliteStore(path)).rejects.toThrow(/schema version 99/);
  });
});
