import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStoreReader } from '../../src/store/open-store.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { migrate, SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { deliveryKey } from '../../src/store/delivery-key.js';
import { ANSWER_COLUMNS } from '../../src/store/rows.js';
import { relayJobKey, StoreUnavailableError } from '../../src/store/store.js';
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

/** The relay_jobs of schema 7: one job a delivery, keyed by its seq (each file here has at most one). */
const RELAY_JOBS_7 = `
  CREATE TABLE relay_jobs_7 (delivery_seq INTEGER PRIMARY KEY, state TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL,
    last_status INTEGER, last_error TEXT, updated_at INTEGER NOT NULL, target TEXT, order_key TEXT);
  INSERT INTO relay_jobs_7 SELECT delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, order_key FROM relay_jobs;
  DROP TABLE relay_jobs;
  ALTER TABLE relay_jobs_7 RENAME TO relay_jobs;
  CREATE INDEX relay_jobs_due ON relay_jobs(next_at) WHERE state = 'pending';
  CREATE INDEX relay_jobs_owed_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state IN ('pending', 'held');
  CREATE INDEX relay_jobs_dead_by_order_key ON relay_jobs(target, order_key, delivery_seq) WHERE order_key IS NOT NULL AND state = 'dead';`;

/** Takes a file back to before schema 7 (order keys), through schema 7's relay_jobs. */
function dropOrderKeys(db: Database.Database): void {
  db.exec(RELAY_JOBS_7);
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
    expect((await reader.relayHistory('unordered-job')).jobs).toMatchObject([{ state: 'pending', target: 'http://127.0.0.1:3000/h' }]);
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
    expect((await reader.relayHistory('old-job')).jobs).toMatchObject([{ state: 'pending', target: null }]);
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

  it('migrates a file of schema 7 (one job a delivery) to one job per target: every job kept exactly, and the store works on it', async () => {
    const path = dbPath();
    const app = 'http://127.0.0.1:3000/app';
    const other = 'http://127.0.0.1:4000/other';
    const log = 'http://127.0.0.1:3002/log';
    const key = 't:trustcenter.access_requested';
    // As a schema-7 hookrelay left it: the shipped migrations 1–7, then its rows.
    mkdirSync(dirname(path), { recursive: true });
    const old = openDatabase(path);
    migrate(old, 7);
    expect(old.pragma('user_version', { simple: true })).toBe(7);
    const at = 1_000_000;
    const jobs: Array<[id: string, state: string, tries: number, nextAt: number, lastStatus: number | null, lastError: string | null, target: string | null, orderKey: string | null]> = [
      ['untargeted', 'pending', 0, at, null, null, null, null],
      ['held', 'held', 2, at + 5_000, 503, 'responded 503', other, null],
      ['dead', 'dead', 5, at + 9_000, 500, 'responded 500', app, null],
      ['done', 'done', 1, at + 10, 204, null, app, null],
      ['ordered-head', 'pending', 1, at + 2_000, 503, 'responded 503', app, key],
      ['ordered-next', 'pending', 0, at, null, null, app, key],
    ];
    const insertDelivery = old.prepare(`INSERT INTO deliveries (seq, id_key, id, trigger, api_version, api_version_known, received_at, signature, headers, raw_body, last_attempt_at)
      VALUES (?, ?, ?, 'trustcenter.access_requested', '2026-06-01', 1, ?, 'valid', '', ?, ?)`);
    const insertJob = old.prepare('INSERT INTO relay_jobs (delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, order_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    jobs.forEach(([id, state, tries, nextAt, lastStatus, lastError, target, orderKey], i) => {
      insertDelivery.run(i + 1, deliveryKey(id), id, at, Buffer.from(`{"id":"${id}"}`), at);
      insertJob.run(i + 1, state, tries, nextAt, lastStatus, lastError, at + i, target, orderKey);
    });
    const rowsOf = (db: Database.Database) => db.prepare('SELECT delivery_seq, state, tries, next_at, last_status, last_error, updated_at, target, order_key FROM relay_jobs ORDER BY delivery_seq').all();
    const before = rowsOf(old);
    expect(before).toHaveLength(6);
    old.close();

    // A reader never migrates: it reads the schema-7 file as it is.
    const reader = await openStoreReader({ kind: 'sqlite', path });
    expect((await reader.relayHistory('ordered-head')).jobs).toEqual([{ deliverySeq: 5, deliveryId: 'ordered-head', state: 'pending', target: app, tries: 1, nextAt: at + 2_000, lastStatus: 503, lastError: 'responded 503' }]);
    await reader.close();

    const order = { [app]: { text: 'trigger', key: 'trigger' as const, onDead: 'skip' as const } };
    const store = await createSqliteStore(path, { outbox: { to: app, routes: [{ glob: '*', urls: [log], also: true }], order } });
    const file = new Database(path, { readonly: true });
    expect(file.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(rowsOf(file)).toEqual(before);
    const indexes = (file.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'relay_jobs' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    expect(indexes).toEqual(['relay_jobs_by_delivery', 'relay_jobs_dead_by_order_key', 'relay_jobs_due', 'relay_jobs_owed_by_order_key']);
    file.close();
    for (const [id, state, tries, nextAt, lastStatus, lastError, target] of jobs) {
      expect((await store.relayHistory(id)).jobs).toEqual([expect.objectContaining({ deliveryId: id, state, tries, nextAt, lastStatus, lastError, target })]);
    }

    // Due: the untargeted job and the head of the key; the next of the key waits behind the head.
    const due = await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10);
    expect(due.map((d) => d.job.deliveryId)).toEqual(['untargeted', 'ordered-head']);
    expect(await store.relayCounts()).toEqual({ pending: 3, held: 1, done: 1, dead: 1 });

    // The untargeted job is moved by a try of any target; the head's done lets the next of its key go.
    await store.recordRelay({ deliverySeq: 1, startedAt: at, finishedAt: at + 1, status: 204, error: null, replay: false, target: app, try: 1, next: { state: 'done' } });
    await store.recordRelay({ deliverySeq: 5, startedAt: at, finishedAt: at + 1, status: 204, error: null, replay: false, target: app, try: 2, next: { state: 'done' } });
    expect((await store.relayHistory('untargeted')).jobs).toMatchObject([{ state: 'done', target: null, tries: 1 }]);
    expect((await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).map((d) => d.job.deliveryId)).toEqual(['ordered-next']);

    // A fan-out accept on the migrated file: a job per target, in the order queued; the app's is ordered behind its key.
    const fresh = makeDelivery({ id: 'fanned-out' });
    const { deliverySeq } = await store.accept(fresh, attemptFor(fresh));
    expect(deliverySeq).toBe(7);
    expect((await store.relayHistory('fanned-out')).jobs.map((j) => [j.deliverySeq, j.target, j.state])).toEqual([[7, app, 'pending'], [7, log, 'pending']]);
    const keys = (await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).map((d) => relayJobKey(d.job));
    expect(keys).toEqual([`6|${app}`, `7|${log}`]);
    // Retention: the dead, done and untargeted (now done) jobs' deliveries go with their jobs; the held one stays.
    expect(await store.prune(Number.MAX_SAFE_INTEGER)).toMatchObject({ deliveries: 4, keptPending: 3 });
    expect(await store.relayCounts()).toEqual({ pending: 3, held: 1, done: 0, dead: 0 });
    await store.close();
  });
});
