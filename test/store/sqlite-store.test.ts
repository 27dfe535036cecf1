import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoreReader } from '../../src/store/open-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { ANSWER_COLUMNS } from '../../src/store/rows.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';
import { describeBridgeContract, describeRelayContract, describeRetentionContract, describeStoreContract } from './store-contract.js';

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
describeBridgeContract('sqlite', (options) => createSqliteStore(dbPath(), options));

/** Takes a file back to before schema 7 (order keys). */
function dropOrderKeys(db: Database.Database): void {
  db.exec('DROP INDEX relay_jobs_owed_by_order_key');
  db.exec('DROP INDEX relay_jobs_dead_by_order_key');
  db.exec('ALTER TABLE relay_jobs DROP COLUMN order_key');
}

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

  it('keeps bridge cursors and what they point at across a close and reopen', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path);
    const delivery = makeDelivery();
    const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
    await store.registerBridgeSubscriber('laptop', 0, 1_000);
    await store.ackBridge('laptop', deliverySeq, 2_000);
    await store.registerBridgeSubscriber('ci', deliverySeq, 3_000);
    await store.close();
    const again = await createSqliteStore(path);
    expect(await again.bridgeCursors()).toEqual([
      { name: 'ci', ackedSeq: deliverySeq, updatedAt: 3_000 },
      { name: 'laptop', ackedSeq: deliverySeq, updatedAt: 2_000 },
    ]);
    expect(await again.latestDeliverySeq()).toBe(deliverySeq);
    await again.close();
  });

  it('never hands out a seq again once its delivery is deleted or pruned, even the newest', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path);
    const [a, b] = [makeDelivery({ receivedAt: 1_000 }), makeDelivery({ receivedAt: 1_000 })];
    await store.accept(a, attemptFor(a, { receivedAt: 1_000 }));
    const seqB = (await store.accept(b, attemptFor(b, { receivedAt: 1_000 }))).deliverySeq;
    expect(await store.deleteDelivery(b.id)).toBe(true);
    const c = makeDelivery();
    const seqC = (await store.accept(c, attemptFor(c))).deliverySeq;
    expect(seqC).toBeGreaterThan(seqB);
    // A prune that empties the table, then a reopen: still above every seq a cursor may have passed.
    expect((await store.prune(Number.MAX_SAFE_INTEGER)).deliveries).toBe(2);
    expect(await store.latestDeliverySeq()).toBe(0);
    await store.close();
    const again = await createSqliteStore(path);
    const d = makeDelivery();
    expect((await again.accept(d, attemptFor(d))).deliverySeq).toBeGreaterThan(seqC);
    expect((await again.deliveriesAfter(seqC, 10)).map((x) => x.id)).toEqual([d.id]);
    await again.close();
  });

  it('reads the bridge through the read-only reader of `events` and `db stats`', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path);
    const delivery = makeDelivery({ trigger: 'vendor.rating_dropped' });
    const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
    await store.ackBridge('laptop', deliverySeq, 5);
    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect((await reader.deliveriesAfter(0, 5, ['vendor.*'])).map((d) => d.id)).toEqual([delivery.id]);
    expect(await reader.bridgeCursors()).toEqual([{ name: 'laptop', ackedSeq: deliverySeq, updatedAt: 5 }]);
    expect(await reader.latestDeliverySeq()).toBe(deliverySeq);
    await reader.close();
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

  it('reads a file from before kept requests (schema 3) read-only, and migrates it: old attempts kept nothing, new ones keep their request', async () => {
    const path = dbPath();
    await (await createSqliteStore(path)).close();
    const old = new Database(path);
    for (const column of ['hints', 'request_headers', 'request_body']) old.exec(`ALTER TABLE attempts DROP COLUMN ${column}`);
    for (const column of ANSWER_COLUMNS.split(', ')) old.exec(`ALTER TABLE relay_attempts DROP COLUMN ${column}`);
    dropOrderKeys(old);
    old.exec('ALTER TABLE relay_jobs DROP COLUMN target');
    old.pragma('user_version = 3');
    old.prepare(`INSERT INTO attempts (delivery_key, delivery_id, received_at, finished_at, body_sha256, body_bytes, outcome, status, reason)
      VALUES (1, 'before', 1, 2, 'x', 3, 'rejected', 400, 'SIGNATURE_MISMATCH')`).run();
    old.close();

    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect(await reader.listAttempts({ limit: 5, withRequest: true })).toMatchObject([{ deliveryId: 'before', reason: 'SIGNATURE_MISMATCH', request: null }]);
    await reader.close();

    const store = await createSqliteStore(path);
    await store.recordAttempt(attemptFor(null, { deliveryId: 'after', outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', hints: ['h'], request: { headers: [['A', 'b']], body: Buffer.from('x') } }));
    const both = await store.listAttempts({ limit: 5, withRequest: true });
    expect(both.map((a) => [a.deliveryId, a.request?.headers ?? null, a.hints ?? null])).toEqual([['after', [['A', 'b']], ['h']], ['before', null, null]]);
    await store.close();
  });

  it('reads a file from before order keys (schema 6) read-only, and migrates it: an old job is not ordered', async () => {
    const path = dbPath();
    const first = await createSqliteStore(path, { outbox: { to: 'http://127.0.0.1:3000/h', routes: [] } });
    const delivery = makeDelivery({ id: 'unordered-job' });
    await first.accept(delivery, attemptFor(delivery));
    await first.close();
    const old = new Database(path);
    dropOrderKeys(old);
    old.pragma('user_version = 6');
    old.close();

    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect((await reader.relayHistory('unordered-job')).job).toMatchObject({ state: 'pending', target: 'http://127.0.0.1:3000/h' });
    await reader.close();

    const store = await createSqliteStore(path, { outbox: { to: 'http://127.0.0.1:3000/h', routes: [] } });
    expect((await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 5)).map((due) => due.delivery.id)).toEqual(['unordered-job']);
    expect(await store.blockedOrderKeys('http://127.0.0.1:3000/h', 5)).toEqual([]);
    await store.close();
  });

  it('reads a file from before job targets (schema 5) read-only, and migrates it: an old job keeps no target and goes where the run routes it', async () => {
    const path = dbPath();
    const first = await createSqliteStore(path, { outbox: true });
    const delivery = makeDelivery({ id: 'old-job' });
    await first.accept(delivery, attemptFor(delivery));
    await first.close();
    const old = new Database(path);
    dropOrderKeys(old);
    old.exec('ALTER TABLE relay_jobs DROP COLUMN target');
    old.pragma('user_version = 5');
    old.close();

    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect((await reader.relayHistory('old-job')).job).toMatchObject({ state: 'pending', target: null });
    await reader.close();

    const store = await createSqliteStore(path, { outbox: { to: 'http://127.0.0.1:3000/h', routes: [] } });
    expect(await store.holdRelayJobs(['http://127.0.0.1:4000/other'], 1)).toBe(0);
    expect(await store.relayBacklog()).toMatchObject([{ target: null, pending: 1, held: 0, dead: 0, retrying: 0 }]);
    await store.close();
  });

  it('reads a file from before kept answers (schema 4) read-only, and migrates it: old relay tries kept nothing, new ones keep the answer', async () => {
    const path = dbPath();
    const first = await createSqliteStore(path, { outbox: true });
    const delivery = makeDelivery({ id: 'old-relay' });
    const { deliverySeq } = await first.accept(delivery, attemptFor(delivery));
    await first.close();
    const old = new Database(path);
    for (const column of ANSWER_COLUMNS.split(', ')) old.exec(`ALTER TABLE relay_attempts DROP COLUMN ${column}`);
    dropOrderKeys(old);
    old.exec('ALTER TABLE relay_jobs DROP COLUMN target');
    old.pragma('user_version = 4');
    old.prepare("INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try) VALUES (?, 1, 2, 503, 'responded 503', 0, 'http://127.0.0.1:1/h', 1)").run(deliverySeq);
    old.close();

    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect((await reader.relayHistory('old-relay', { withAnswers: true })).attempts).toMatchObject([{ status: 503, try: 1, answer: null }]);
    await reader.close();

    const store = await createSqliteStore(path, { outbox: true });
    const answer = { headers: [['Retry-After', '5']] as Array<[string, string]>, headerLines: 1, body: Buffer.from([0x62, 0xff, 0x00]), bodyBytes: 3, complete: true };
    await store.recordRelay({ deliverySeq, startedAt: 3, finishedAt: 4, status: 200, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 2, answer, next: { state: 'done' } });
    const tries = (await store.relayHistory('old-relay', { withAnswers: true })).attempts;
    expect(tries.map((a) => a.answer && { ...a.answer, body: Buffer.from(a.answer.body).toString('hex') })).toEqual([null, { ...answer, body: '62ff00' }]);
    await store.close();
  });

  it('removes a relay try\'s kept answer with the delivery (delete) and with retention (prune)', async () => {
    const path = dbPath();
    const store = await createSqliteStore(path, { outbox: true });
    const answer = { headers: [['A', 'b']] as Array<[string, string]>, headerLines: 1, body: Buffer.alloc(4096, 0x61), bodyBytes: 9000, complete: true };
    for (const id of ['deleted', 'pruned']) {
      const d = makeDelivery({ id, receivedAt: 1_000 });
      const { deliverySeq } = await store.accept(d, attemptFor(d, { receivedAt: 1_000 }));
      await store.recordRelay({ deliverySeq, startedAt: 1_001, finishedAt: 1_002, status: 200, error: null, replay: false, target: 'http://127.0.0.1:1/h', try: 1, answer, next: { state: 'done' } });
    }
    const kept = () => {
      const db = new Database(path, { readonly: true });
      const n = (db.prepare('SELECT count(*) AS n FROM relay_attempts WHERE answer_body IS NOT NULL').get() as { n: number }).n;
      db.close();
      return n;
    };
    expect(kept()).toBe(2);
    expect(await store.deleteDelivery('deleted')).toBe(true);
    expect(kept()).toBe(1);
    expect(await store.prune(2_000)).toMatchObject({ deliveries: 1, relayAttempts: 1 });
    expect(kept()).toBe(0);
    await store.close();
  });
});
