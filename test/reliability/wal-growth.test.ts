/**
 * Scenario 7, WAL growth: a long-lived reader (an open console query: a read transaction on its
 * own connection) holds the WAL during heavy intake of large deliveries. Intake goes on; once the
 * reader lets go, the checkpoint thread catches up and the WAL is reused instead of growing. And a
 * database whose write lock another connection holds answers 503, never a 2xx and never a hang.
 */
import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { sign } from '../../src/core/signature/sign.js';
import type { SignedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { baseConfig, checkDatabase, fresh, nowSeconds, post, runLoad, pollUntil, summary, TEST_SECRET, type Answer } from './helpers/kit.js';

const BODY_BYTES = 256 * 1024;
const WAL_BOUND = 64 * 1024 * 1024; // journal_size_limit (open-database.ts): a WAL past it was pinned by the reader
const AFTER_DELIVERIES = 200; // ≈ 50 MiB: less than the WAL already holds
const STEADY_DELIVERIES = 800; // ≈ 200 MiB of intake
const STEADY_BOUND = 8 * 1024 * 1024; // the writer's walRestartBytes in that test
const STEADY_CHECKPOINT_MS = 50;
const CONCURRENCY = 8;

function big(): SignedRequest {
  const id = crypto.randomUUID();
  const body = Buffer.from(
    JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data: { accessRequestId: 'ar_1', note: 'w'.repeat(BODY_BYTES) } }),
  );
  return { id, body, headers: { 'content-type': 'application/json', 'x-service-event': 'trustcenter.access_requested', 'x-service-delivery': id, 'x-service-delivery-attempt': '1', 'x-service-signature': sign(TEST_SECRET, body, nowSeconds()) } };
}

/**
 * The WAL index (the -shm file, SQLite's documented format, native byte order): mxFrame is the
 * last valid frame in the WAL, nBackfill how many of them a checkpoint has copied into the
 * database. Equal means the checkpoint caught up.
 */
function walIndex(dbPath: string): { mxFrame: number; nBackfill: number } {
  const shm = Buffer.alloc(136);
  readSync(shmFd(dbPath), shm, 0, 136, 0);
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

// Closing any handle to -shm drops every POSIX lock this process holds on it, SQLite's included
// (the app runs in this process): each is opened once and closed only after every app closed.
const shmFds = new Map<string, number>();
const shmFd = (dbPath: string) => shmFds.get(dbPath) ?? shmFds.set(dbPath, openSync(`${dbPath}-shm`, 'r')).get(dbPath)!;
const closeShmFds = () => {
  for (const fd of shmFds.values()) closeSync(fd);
  shmFds.clear();
};

const walBytes = (dbPath: string) => statSync(`${dbPath}-wal`).size;

describe('WAL growth with a long-lived reader', () => {
  const cleanups: Array<() => unknown> = [];
  let app: AppHandle;
  let dbPath = '';
  let dispatcher: Agent;
  const acked = new Map<string, Buffer>();
  const numbers: Record<string, unknown> = {};
  let refusedWhileReaderHeld: Answer[] | null = null;

  beforeAll(async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    cleanups.push(closeShmFds); // cleanups run last first: after every app below has closed
    dbPath = join(dir, 'wal.db');
    app = await buildApp(baseConfig(dbPath));
    cleanups.push(() => app.close());
    dispatcher = new Agent({ connections: CONCURRENCY });
    cleanups.push(() => dispatcher.destroy());
  });
  afterAll(async () => {
    summary('WAL growth', numbers);
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Sends big deliveries while `more()` says so (and at most 2,000). */
  async function intake(more: () => boolean): Promise<Answer[]> {
    const answers: Answer[] = [];
    let sent = 0;
    await runLoad({
      url: app.receiverUrl,
      dispatcher,
      concurrency: CONCURRENCY,
      next: () => (sent++ < 2_000 && more() ? big() : null),
      onAnswer: (answer, req) => {
        answers.push(answer);
        if (answer.status === 200) acked.set(req.id, req.body);
      },
    });
    return answers;
  }

  /** Steady intake of 200 MiB into a store of its own; answers the largest WAL in use seen (the WAL index after each answer). */
  async function steadyIntake(checkpointIntervalMs: number): Promise<number> {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const path = join(dir, 'steady.db');
    const store = await createSqliteStore(path, { walRestartBytes: STEADY_BOUND, checkpointIntervalMs });
    const steady = await buildApp(baseConfig(path), { store });
    cleanups.push(() => steady.close());
    const frameBytes = 4096 + 24;
    let largestInUse = 0;
    let sent = 0;
    const answers: Answer[] = [];
    await runLoad({
      url: steady.receiverUrl,
      dispatcher,
      concurrency: CONCURRENCY,
      next: () => (sent++ < STEADY_DELIVERIES ? big() : null),
      onAnswer: (answer) => {
        answers.push(answer);
        largestInUse = Math.max(largestInUse, walIndex(path).mxFrame * frameBytes);
      },
    });
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    return largestInUse;
  }

  // Found in session 2 by profiling the bench: under steady intake the checkpoint thread never
  // finished (frames arrive as it copies), so SQLite never started the WAL over; the bench load
  // grew it to 240 MB in 6 s. Past a bound, the writer now finishes a checkpoint between two
  // commits. A small bound here shows it holds: with the old code this measured 73.8 MiB.
  it('keeps the WAL in use near its bound under steady intake, with no reader holding it', async () => {
    const largestInUse = await steadyIntake(STEADY_CHECKPOINT_MS);
    Object.assign(numbers, { steadyIntakeMiB: +((STEADY_DELIVERIES * BODY_BYTES) / 2 ** 20).toFixed(0), steadyBoundMiB: STEADY_BOUND / 2 ** 20, largestWalInUseMiB: +(largestInUse / 2 ** 20).toFixed(1) });
    // The bound, plus what arrives while the writer cannot checkpoint: the thread's own pass holds
    // the checkpoint lock (the writer reads the WAL's frames from SQLite after every commit, so the
    // thread's timing adds nothing else). 10–25 MiB measured; session 16's CI measured 38.9 MiB
    // when the writer went by the thread's last look, while the thread was still booting. Four times the bound still
    // fails the code before session 2 (73.8 MiB) by a wide margin.
    expect(largestInUse).toBeLessThan(STEADY_BOUND * 4);
  });

  // Found in session 17: the writer went by the checkpoint thread's last look, so until its first
  // one the writer saw an empty WAL, and the thread starts only at the first delivery. A thread
  // that never looks shows the writer's own reading bounds the WAL: without it, all 200 MiB stayed.
  it('keeps the WAL in use near its bound before the checkpoint thread has looked at it', async () => {
    const largestInUse = await steadyIntake(10 * 60_000);
    Object.assign(numbers, { largestWalInUseBeforeTheThreadLooksMiB: +(largestInUse / 2 ** 20).toFixed(1) });
    expect(largestInUse).toBeLessThan(STEADY_BOUND * 4);
  });

  it('checkpoints and reuses the WAL once a long-lived reader lets go', async () => {
    const reader = new Database(dbPath, { readonly: true });
    cleanups.push(() => reader.close());
    // The console's query, left open: a read transaction pins its snapshot of the WAL.
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM deliveries').get();
    let held: Answer[];
    let walWhileHeld: number;
    let pastBoundAt = 0;
    try {
      // Intake goes on until the WAL has been past 64 MiB for 2.5 s, so the checkpoint thread
      // (every second) and the writer's own checkpoints meet the open reader many times.
      held = await intake(() => {
        if (pastBoundAt === 0 && walBytes(dbPath) > WAL_BOUND) pastBoundAt = performance.now();
        return pastBoundAt === 0 || performance.now() - pastBoundAt < 2_500;
      });
      walWhileHeld = walBytes(dbPath);
    } finally {
      reader.exec('COMMIT');
    }
    const refusedWhileHeld = held.filter((a) => a.status !== 200);
    Object.assign(numbers, {
      deliveriesWhileReaderHeld: held.length, refusedWhileReaderHeld: refusedWhileHeld.length,
      slowestWhileReaderHeldMs: Math.round(Math.max(...held.map((a) => a.ms))),
    });
    refusedWhileReaderHeld = refusedWhileHeld;
    // The reader pinned the WAL: nothing could be reused, so it holds every frame written.
    expect(walWhileHeld).toBeGreaterThan(WAL_BOUND);

    // The checkpoint thread runs on its own timer and announces nothing; the WAL index in -shm
    // is the only sign that it caught up, so it is polled (every 50 ms, at most 5 s).
    const releasedAt = performance.now();
    await pollUntil(() => {
      const { mxFrame, nBackfill } = walIndex(dbPath);
      return mxFrame > 0 && nBackfill === mxFrame;
    }, 'the checkpoint thread to copy the whole WAL into the database', 5_000);
    const catchUpMs = Math.round(performance.now() - releasedAt);

    let left = AFTER_DELIVERIES;
    const after = await intake(() => left-- > 0);
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    const walAfter = walBytes(dbPath);
    // Less was written than the WAL already held: a WAL that restarts from its beginning does
    // not grow; one that was never checkpointed would have grown by ~50 MiB.
    expect(walAfter).toBeLessThanOrEqual(walWhileHeld);

    Object.assign(numbers, {
      deliveries: held.length + after.length, bodyBytes: (held.length + after.length) * BODY_BYTES,
      walWhileReaderHeldMiB: +(walWhileHeld / 2 ** 20).toFixed(1), checkpointCaughtUpMs: catchUpMs, walAfterMoreIntakeMiB: +(walAfter / 2 ** 20).toFixed(1),
    });
  });

  // Found by this suite: past the bound, the checkpoint thread runs RESTART with a 5 s busy
  // timeout; RESTART blocks new writers while it waits for readers, so an open reader turns
  // intake into 503s for as long as it stays open (the writer gives up after ~2 s).
  it('never refuses a delivery because a reader holds the WAL', () => {
    expect(refusedWhileReaderHeld).not.toBeNull();
    expect(refusedWhileReaderHeld!.map((a) => a.status)).toEqual([]);
  });

  it('answers 503 while another connection holds the write lock: never a 2xx, never a hang', async () => {
    const locker = new Database(dbPath);
    cleanups.push(() => locker.close());
    locker.exec('BEGIN EXCLUSIVE');
    let answers: Answer[];
    try {
      answers = await Promise.all(Array.from({ length: 8 }, () => post(app.receiverUrl, fresh(), dispatcher)));
    } finally {
      locker.exec('COMMIT');
    }
    expect(answers.map((a) => [a.status, a.code])).toEqual(answers.map(() => [503, 'STORE_UNAVAILABLE']));
    // Bounded by the store's write timeout (5 s) and the recording of the failed attempt: see
    // store-failure.test.ts for the bound the service's 10 s timeout asks for.
    const slowest = Math.max(...answers.map((a) => a.ms));
    expect(slowest).toBeLessThan(12_000);
    const next = fresh();
    const recovered = await post(app.receiverUrl, next, dispatcher);
    expect(recovered.status).toBe(200);
    acked.set(next.id, next.body);

    await app.close();
    const check = checkDatabase(dbPath, acked);
    expect(check.integrity).toBe('ok');
    expect(check.missing).toEqual([]);
    expect(check.doubled).toEqual([]);
    Object.assign(numbers, { busy503: answers.length, slowestBusy503Ms: Math.round(slowest), lost: 0 });
  });
});
