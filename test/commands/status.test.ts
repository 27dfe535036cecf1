/** `hookrelay status` (issue 39, item 3): lag and backlog from the store, on one screen or as one JSON object. */
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStatus, statusText } from '../../src/commands/status.js';
import { createJournal, newJobId } from '../../src/relay/replay-job-journal.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createPostgresStore } from '../../src/store/postgres/pg-store.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';

const postgres = useTestPostgres();

const APP = 'http://127.0.0.1:3000/hooks';
const VENDOR = 'https://bob:hunter2-password@vendor.example/in';
const VENDOR_SHOWN = 'https://[redacted]@vendor.example/in';
const MIN = 60_000;

/** 3 deliveries for the app, 2 for the vendor, a minute apart from `t0`; the app's first done, its third retrying, the vendor's first dead; two subscribers. */
async function seed(store: DeliveryStore, t0: number): Promise<number[]> {
  const seqs: number[] = [];
  const triggers = ['trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested', 'vendor.rating_dropped', 'trustcenter.access_requested'];
  for (const [i, trigger] of triggers.entries()) {
    const d = makeDelivery({ trigger, receivedAt: t0 + i * MIN });
    seqs.push((await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }))).deliverySeq);
  }
  const tried = (seq: number, next: 'done' | 'pending' | 'dead', target: string) =>
    store.recordRelay({
      deliverySeq: seq, startedAt: t0, finishedAt: t0, status: next === 'done' ? 204 : 503, error: null, replay: false, target, try: 1,
      next: next === 'pending' ? { state: 'pending', nextAt: t0 + 3_600_000 } : { state: next },
    });
  await tried(seqs[0]!, 'done', APP);
  await tried(seqs[2]!, 'pending', APP);
  await tried(seqs[1]!, 'dead', VENDOR);
  await store.ackBridge('laptop', seqs[1]!, t0 + 5 * MIN);
  await store.ackBridge('ci-runner', seqs[4]!, t0 + 5 * MIN);
  return seqs;
}

const targets = { to: APP, routes: [{ glob: 'vendor.*', urls: [VENDOR] }] };

describe('readStatus and its screen', () => {
  it('per target and per subscriber, with ages at the given time', async () => {
    const store = createMemoryStore({ outbox: targets });
    const t0 = 1_763_719_200_000;
    await seed(store, t0);
    const report = await readStatus(store, 'memory', t0 + 10 * MIN);
    expect(report.relay).toEqual({
      owed: 3,
      retrying: 1,
      dead: 1,
      oldestOwedAgeSeconds: 480,
      total: 2,
      targets: [
        { target: APP, pending: 2, held: 0, dead: 0, retrying: 1, oldestOwedAt: new Date(t0 + 2 * MIN).toISOString(), oldestOwedAgeSeconds: 480 },
        { target: VENDOR_SHOWN, pending: 1, held: 0, dead: 1, retrying: 0, oldestOwedAt: new Date(t0 + 3 * MIN).toISOString(), oldestOwedAgeSeconds: 420 },
      ],
    });
    expect(report.bridge).toMatchObject({ latestSeq: 5, total: 2, behind: 1 });
    expect(report.bridge.subscribers).toEqual([
      { subscriber: 'laptop', ackedSeq: 2, lag: 3, lagSeconds: 480, updatedAt: new Date(t0 + 5 * MIN).toISOString() },
      { subscriber: 'ci-runner', ackedSeq: 5, lag: 0, lagSeconds: 0, updatedAt: new Date(t0 + 5 * MIN).toISOString() },
    ]);
    const text = statusText(report);
    expect(text).toMatch(/^relay {4}3 owed to 2 targets, the oldest for 8 min; 1 retrying; 1 dead$/m);
    expect(text).toMatch(/^ {2}http:\/\/127\.0\.0\.1:3000\/hooks +2 +0 +8 min +1 +0$/m);
    expect(text).toMatch(/^ {2}https:\/\/\[redacted\]@vendor\.example\/in +1 +0 +7 min +0 +1$/m);
    expect(text).toMatch(/^bridge {3}2 subscribers, 1 behind \(newest seq 5\)$/m);
    expect(text).toMatch(/^ {2}laptop +3 +8 min +2 /m);
    expect(text).not.toContain('hunter2');
  });

  it('an empty store says nothing is owed; hostile subscriber names are escaped', async () => {
    const store = createMemoryStore();
    await store.ackBridge('evil\u001b[2J\u202Ename', 0, 0);
    const text = statusText(await readStatus(store, 'memory', 1_000));
    expect(text).toContain('relay    nothing owed, nothing dead');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202E');
    expect(text).toContain('bridge   1 subscriber, 0 behind (newest seq 0)');
  });
});

describe('hookrelay status (the command)', () => {
  let dir: string;
  let remove: () => void;
  let db: string;
  let store: SqliteStore;
  beforeEach(async () => {
    ({ dir, remove } = tempDir());
    db = join(dir, 'hookrelay.db');
    // Open as a running listen holds it: status reads beside the writer.
    store = await createSqliteStore(db, { outbox: targets });
  });
  afterEach(async () => {
    await store.close();
    remove();
  });

  it('prints one JSON object, and the same on one screen, beside the open store', async () => {
    const t0 = Date.now() - 2 * 3_600_000;
    await seed(store, t0);
    const json = await runCli(['status', '--db', db, '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.store).toBe(db);
    expect(report.relay).toMatchObject({ owed: 3, retrying: 1, dead: 1, total: 2 });
    expect(report.relay.targets.map((t: { target: string }) => t.target)).toEqual([APP, VENDOR_SHOWN]);
    expect(report.relay.targets[0]).toMatchObject({ pending: 2, held: 0, retrying: 1, dead: 0, oldestOwedAt: new Date(t0 + 2 * MIN).toISOString() });
    // Two hours ago, less two minutes: at least that old when the command ran.
    expect(report.relay.targets[0].oldestOwedAgeSeconds).toBeGreaterThanOrEqual(2 * 3600 - 120);
    expect(report.bridge.subscribers[0]).toMatchObject({ subscriber: 'laptop', ackedSeq: 2, lag: 3 });
    expect(report.bridge.subscribers[0].lagSeconds).toBeGreaterThanOrEqual(2 * 3600 - 120);
    expect(json.stdout).not.toContain('hunter2');

    const text = await runCli(['status', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^relay {4}3 owed to 2 targets, the oldest for 1 h 5\d min; 1 retrying; 1 dead$/m);
    expect(text.stdout).toMatch(/^bridge {3}2 subscribers, 1 behind/m);
    expect(text.stdout).not.toContain('hunter2');
  });

  it("lists the data folder's replay jobs not finished, with a stopped one's way on, and counts the rest", async () => {
    const none = await runCli(['status', '--db', db, '--json']);
    expect(JSON.parse(none.stdout).replay).toEqual({ folder: dir, finished: 0, damaged: 0, jobs: [] });
    const plan = (items: number) => ({ version: 1 as const, id: newJobId(), createdAt: Date.now(), selection: 'trigger "vendor.*"', to: null, ratePerSecond: null, concurrency: 2, items: Array.from({ length: items }, (_, i) => ({ seq: i + 1, id: `evt-${i}` })) });
    // One stopped after 2 of 5 (one failed), one finished.
    const stopped = plan(5);
    const journal = createJournal(dir, stopped);
    journal.begin([0, 1], Date.now());
    journal.finish(0, 204, true);
    journal.finish(1, 503, false);
    journal.close();
    const done = createJournal(dir, plan(1));
    done.begin([0], Date.now());
    done.finish(0, 204, true);
    done.close();
    const json = await runCli(['status', '--db', db, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).replay).toMatchObject({ finished: 1, damaged: 0, jobs: [{ id: stopped.id, state: 'stopped', total: 5, done: 2, handedOn: 1, ok: 1, failed: 1, left: 3 }] });
    const text = await runCli(['status', '--db', db]);
    expect(text.stdout).toMatch(/^replay {3}0 running, 1 stopped; 1 finished$/m);
    expect(text.stdout).toMatch(new RegExp(`^  ${stopped.id} +stopped +1 +1 +3  trigger "vendor\\.\\*"$`, 'm'));
    expect(text.stdout).toContain('hookrelay events replay --resume JOB');
  });

  it('refuses bad input with the cause and the usual codes: unknown flag 2, no store 2, a bad --store 2, an unreadable store 3', async () => {
    const flag = await runCli(['status', '--db', db, '--jsn']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--jsn'/);
    expect(flag.stderr).toMatch(/--json/);

    const missing = await runCli(['status', '--db', join(dir, 'nope.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no database at ${join(dir, 'nope.db')}`);

    const badUrl = await runCli(['status', '--store', 'mysql://x']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--store: must be a postgres:// or postgresql:// URL');

    const other = join(dir, 'other.db');
    const foreign = new Database(other);
    foreign.exec('CREATE TABLE t (x)');
    foreign.close();
    const unreadable = await runCli(['status', '--db', other]);
    expect(unreadable.code).toBe(3);
    expect(unreadable.stderr).toContain(`${other} is not a hookrelay store that can be read`);

    const text = join(dir, 'text.db');
    writeFileSync(text, 'not a database at all');
    const garbage = await runCli(['status', '--db', text]);
    expect(garbage.code).toBe(3);
    expect(garbage.stderr).toMatch(/^hookrelay: /);
  });
});

describe('hookrelay status --store postgres://', () => {
  it('reads the same from PostgreSQL, without printing the password', async () => {
    const href = new URL(await postgres.freshSchema());
    if (!href.password) href.password = 'Status-S3cret-pw';
    const url = href.href;
    const store = await createPostgresStore(url, { outbox: targets });
    try {
      await seed(store, Date.now() - 3_600_000);
    } finally {
      await store.close();
    }
    const json = await runCli(['status', '--store', url, '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.relay).toMatchObject({ owed: 3, retrying: 1, dead: 1, total: 2 });
    expect(report.relay.targets.map((t: { target: string }) => t.target)).toEqual([APP, VENDOR_SHOWN]);
    expect(report.bridge.subscribers[0]).toMatchObject({ subscriber: 'laptop', ackedSeq: 2, lag: 3 });
    expect(report.bridge.subscribers[0].lagSeconds).toBeGreaterThanOrEqual(3600 - 180);
    const text = await runCli(['status', '--store', url]);
    expect(text.code).toBe(0);
    for (const out of [json.stdout, text.stdout]) expect(out).not.toContain(decodeURIComponent(href.password));
  });
});
