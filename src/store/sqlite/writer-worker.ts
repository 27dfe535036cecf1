/**
 * The writer thread: the only connection that writes. Group commit — every request that
 * arrived while the previous transaction was committing goes into the next one, so many
 * deliveries share one fsync, and each is answered only after the commit that holds it.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { deliveryKey } from '../delivery-key.js';
import { jobTargetOf, type BridgeCursor, type RelayOutcome } from '../store.js';
import { relayJobsOf } from '../../core/routes.js';
import { decodeBatch, OUTCOME, type DecodedRequest, type PackedAnswer, type PackedAttempt } from './batch-codec.js';
import { openDatabase } from './open-database.js';
import { createPruner, type PruneChunk, type PrunePhase } from './prune-chunk.js';
import type { FromWriter, StoreOpImplementations, ToWriter, WriterData, WriteResults } from './writer-ops.js';
import { migrate } from './schema.js';

const { path, port, commitDelayMs, outbox, walRestartBytes } = workerData as WriterData & { port: MessagePort };
const send = (message: FromWriter) => port.postMessage(message);
// Synchronous sleeps: the slow-disk test knob, and the pause between retries of a busy commit.
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(sleepCell, 0, 0, ms);

let db: ReturnType<typeof openDatabase>;
try {
  db = openDatabase(path);
  migrate(db);
} catch (err) {
  send({ type: 'fatal', error: (err as Error).message });
  throw err;
}

const findDelivery = db.prepare<[number, string], { seq: number }>('SELECT seq FROM deliveries WHERE id_key = ? AND id = ?');
// The seq is never one handed out before (schema.ts, migration 3): two seeks, no scan.
const insertDelivery = db.prepare(
  `INSERT INTO deliveries (seq, id_key, id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, last_attempt_at)
   VALUES (max(coalesce((SELECT max(seq) FROM deliveries), 0), coalesce((SELECT value FROM store_meta WHERE key = 'delivery_seq_floor'), 0)) + 1,
     ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const countDuplicate = db.prepare('UPDATE deliveries SET duplicate_count = duplicate_count + 1, last_attempt_at = ? WHERE seq = ?');
const insertAttempt = db.prepare(
  `INSERT INTO attempts (delivery_seq, delivery_key, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after,
     hints, request_headers, request_body)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

const insertRelayJob = db.prepare("INSERT INTO relay_jobs (delivery_seq, state, next_at, updated_at, target, order_key) VALUES (?, 'pending', ?, ?, ?, ?)");
// At start (holdRelayJobs): pending jobs for a target the run does not hand on to are held; held jobs for one it does are pending again.
const holdForeignJobs = db.prepare("UPDATE relay_jobs SET state = 'held', updated_at = ? WHERE state = 'pending' AND target IS NOT NULL AND target NOT IN (SELECT value FROM json_each(?))");
const releaseOwnJobs = db.prepare("UPDATE relay_jobs SET state = 'pending', updated_at = ? WHERE state = 'held' AND target IN (SELECT value FROM json_each(?))");
// A delivery that has a job for the new target already is handed there by that job: its owed job for the old one goes,
// and that job is owed again if it was not (dead, or held for a target the running relay did not hand on to).
const reviveMergedIntoJobs = db.prepare<[number, number, string, string | null]>(
  "UPDATE relay_jobs SET state = 'pending', next_at = ?, updated_at = ? WHERE target = ? AND state IN ('dead', 'held') AND EXISTS (SELECT 1 FROM relay_jobs f WHERE f.delivery_seq = relay_jobs.delivery_seq AND f.target IS ? AND f.state IN ('pending', 'held'))",
);
const mergeRetargetedJobs = db.prepare<[string | null, string]>(
  "DELETE FROM relay_jobs WHERE state IN ('pending', 'held') AND target IS ? AND EXISTS (SELECT 1 FROM relay_jobs t WHERE t.delivery_seq = relay_jobs.delivery_seq AND t.target = ?)",
);
const retargetJobs = db.prepare("UPDATE relay_jobs SET target = ?, state = 'pending', updated_at = ? WHERE state IN ('pending', 'held') AND target IS ?");
const insertRelayAttempt = db.prepare(
  `INSERT INTO relay_attempts (delivery_seq, started_at, finished_at, status, error, replay, target, try,
     answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
// Only a pending job moves: a try's outcome that lands late (its write timed out, then committed)
// never takes a job that a later try finished back to pending. The job of the target tried, one
// seek on (delivery_seq, target); else the delivery's job with no target, queued before targets were
// kept (its delivery's only job). Two statements, the second only when the first moved none:
// `coalesce(target, ?) = ?` in one seeks the delivery's jobs and filters them, ~0.6 µs more a try.
const moveRelayJobSql = "UPDATE relay_jobs SET state = ?, tries = ?, next_at = ?, last_status = ?, last_error = ?, updated_at = ? WHERE delivery_seq = ? AND state = 'pending' AND target";
const moveRelayJob = db.prepare<[string, number, number, number | null, string | null, number, number, string]>(`${moveRelayJobSql} = ?`);
const moveUntargetedRelayJob = db.prepare<[string, number, number, number | null, string | null, number, number]>(`${moveRelayJobSql} IS NULL`);
// Every dead job of the delivery, or only its job for the target given (the last parameter; null: any).
const requeueRelayJob = db.prepare<[number, number, number, string, string | null, string | null]>(
  "UPDATE relay_jobs SET state = 'pending', next_at = ?, updated_at = ? WHERE state = 'dead' AND delivery_seq = (SELECT seq FROM deliveries WHERE id_key = ? AND id = ?) AND (? IS NULL OR target = ?)",
);
const deleteStatements = [
  'DELETE FROM attempts WHERE delivery_seq = @seq',
  'DELETE FROM attempts WHERE delivery_seq IS NULL AND delivery_key = @key AND delivery_id = @id',
  'DELETE FROM relay_attempts WHERE delivery_seq = @seq',
  'DELETE FROM relay_jobs WHERE delivery_seq = @seq',
  'DELETE FROM deliveries WHERE seq = @seq',
].map((sql) => db.prepare(sql));

const raiseSeqFloor = db.prepare<[number]>("UPDATE store_meta SET value = max(value, ?) WHERE key = 'delivery_seq_floor'");
const pruneChunk = createPruner(db, raiseSeqFloor);

const registerSubscriber = db.prepare<[string, number, number]>(
  'INSERT INTO bridge_subscribers (name, acked_seq, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING',
);
const subscriberOf = db.prepare<[string], { name: string; ackedSeq: number; updatedAt: number }>(
  'SELECT name, acked_seq AS ackedSeq, updated_at AS updatedAt FROM bridge_subscribers WHERE name = ?',
);
// Forward only: an older or repeated acknowledgement changes nothing, not even the time.
const ackSubscriber = db.prepare<[string, number, number]>(
  `INSERT INTO bridge_subscribers (name, acked_seq, updated_at) VALUES (?, ?, ?)
   ON CONFLICT(name) DO UPDATE SET acked_seq = excluded.acked_seq, updated_at = excluded.updated_at WHERE excluded.acked_seq >= bridge_subscribers.acked_seq`,
);

/** Named operations; each returns a number for the caller (a count, or 0/1), or a detail object. */
const OPS: StoreOpImplementations = {
  // Rewrites the header page: a real write (and fsync) through the group commit.
  probe(): number {
    db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
    return 1;
  },
  prune(before: number, phase: PrunePhase, after: number, limit: number, dryRun: boolean, keepAfterSeq: number | null = null): PruneChunk {
    return pruneChunk(before, phase, after, limit, dryRun, keepAfterSeq);
  },
  registerBridgeSubscriber(name: string, seq: number, now: number): BridgeCursor {
    registerSubscriber.run(name, seq, now);
    return subscriberOf.get(name)!;
  },
  ackBridge(name: string, seq: number, now: number): number {
    return ackSubscriber.run(name, seq, now).changes;
  },
  recordRelay(o: Omit<RelayOutcome, 'answer'>, answer: PackedAnswer | null): number {
    insertRelayAttempt.run(
      o.deliverySeq, o.startedAt, o.finishedAt, o.status, o.error, o.replay ? 1 : 0, o.target, o.try,
      answer?.headerLines ?? null, answer?.bodyBytes ?? null, answer ? (answer.complete ? 1 : 0) : null, answer?.headersJson ?? null, answer?.body ?? null,
    );
    if (o.next) {
      const nextAt = o.next.state === 'pending' ? o.next.nextAt : o.finishedAt;
      const moved = moveRelayJob.run(o.next.state, o.try, nextAt, o.status, o.error, o.finishedAt, o.deliverySeq, jobTargetOf(o)).changes;
      if (moved === 0) moveUntargetedRelayJob.run(o.next.state, o.try, nextAt, o.status, o.error, o.finishedAt, o.deliverySeq);
    }
    return 1;
  },
  holdRelayJobs(targetsJson: string, now: number): number {
    return holdForeignJobs.run(now, targetsJson).changes + releaseOwnJobs.run(now, targetsJson).changes;
  },
  retargetRelayJobs(from: string | null, to: string, now: number): number {
    // Onto the same target, each job would find itself as the one to merge into and be removed.
    if (from !== to) reviveMergedIntoJobs.run(now, now, to, from);
    const merged = from === to ? 0 : mergeRetargetedJobs.run(from, to).changes;
    return merged + retargetJobs.run(to, now, from).changes;
  },
  requeueRelay(id: string, now: number, target?: string): number {
    return requeueRelayJob.run(now, now, deliveryKey(id), id, target ?? null, target ?? null).changes;
  },
  deleteDelivery(id: string): number {
    const key = deliveryKey(id);
    const found = findDelivery.get(key, id);
    if (!found) return 0;
    raiseSeqFloor.run(found.seq);
    for (const statement of deleteStatements) statement.run({ seq: found.seq, key, id });
    return 1;
  },
};

/** `requestLines`: the header lines the attempt keeps (a duplicate's are its delivery's, as it arrived); the body only for one that stored nothing. */
function recordAttempt(attempt: PackedAttempt, deliverySeq: number | null, outcome: string, requestLines = attempt.requestLines): number {
  return Number(insertAttempt.run(
    deliverySeq,
    deliverySeq === null && attempt.deliveryId !== null ? deliveryKey(attempt.deliveryId) : null,
    attempt.deliveryId,
    attempt.trigger,
    attempt.receivedAt,
    attempt.finishedAt,
    attempt.attemptHeader,
    attempt.signatureTimestamp,
    attempt.bodySha256,
    attempt.bodyBytes,
    outcome,
    attempt.status,
    attempt.reason,
    attempt.retryAfter,
    attempt.hintsJson,
    requestLines,
    deliverySeq === null ? attempt.requestBody : null,
  ).lastInsertRowid);
}

/** A named operation from the main thread, with the arguments its name takes (writer-ops.ts). */
function runOp(request: Exclude<DecodedRequest, { kind: 'accept' | 'attempt' | 'relay' }>): number | object {
  const op = OPS[request.name] as ((...args: unknown[]) => number | object) | undefined;
  if (!op) throw new Error(`unknown store operation ${request.name}`);
  return op(...request.args);
}

/** Applies one request: pushes its ticket, its outcome code (OUTCOME) and its delivery seq (or an op's value) onto `results`. */
function apply(request: DecodedRequest, results: WriteResults): void {
  results.tickets.push(request.ticket);
  if (request.kind === 'op' || request.kind === 'relay') {
    const value = request.kind === 'relay' ? OPS.recordRelay(request.outcome, request.answer) : runOp(request);
    results.outcomes.push(OUTCOME.recorded);
    results.attemptSeqs.push(0);
    if (typeof value === 'number') results.deliverySeqs.push(value);
    else {
      results.deliverySeqs.push(0);
      (results.details ??= {})[results.tickets.length - 1] = value;
    }
    return;
  }
  if (request.kind === 'attempt') {
    results.attemptSeqs.push(recordAttempt(request.attempt, null, request.attempt.outcome));
    results.outcomes.push(OUTCOME.recorded);
    results.deliverySeqs.push(0);
    return;
  }
  const { delivery, attempt } = request;
  const key = deliveryKey(delivery.id);
  const existing = findDelivery.get(key, delivery.id);
  if (existing) {
    countDuplicate.run(attempt.receivedAt, existing.seq);
    results.attemptSeqs.push(recordAttempt(attempt, existing.seq, 'duplicate', delivery.headerLines));
    results.outcomes.push(OUTCOME.duplicate);
    results.deliverySeqs.push(existing.seq);
    return;
  }
  const seq = Number(
    insertDelivery.run(
      key, delivery.id, delivery.trigger, delivery.apiVersion, delivery.apiVersionKnown ? 1 : 0, delivery.receivedAt,
      delivery.signature, delivery.secretIndex, delivery.signatureTimestamp, delivery.headerLines, delivery.rawBody, attempt.receivedAt,
    ).lastInsertRowid,
  );
  results.attemptSeqs.push(recordAttempt(attempt, seq, 'accepted', null));
  // The outbox jobs (one per target) are part of the accepting transaction: accepted means it will be handed on.
  if (outbox === true) insertRelayJob.run(seq, attempt.receivedAt, attempt.receivedAt, null, null);
  else if (outbox) {
    for (const job of relayJobsOf(outbox, { trigger: delivery.trigger, rawBody: delivery.rawBody, headers: delivery.headerLines })) {
      insertRelayJob.run(seq, attempt.receivedAt, attempt.receivedAt, job.target, job.orderKey);
    }
  }
  results.outcomes.push(OUTCOME.accepted);
  results.deliverySeqs.push(seq);
}

const commitBatch = db.transaction((requests: DecodedRequest[]) => {
  const results: WriteResults = { tickets: [], outcomes: [], deliverySeqs: [], attemptSeqs: [], error: null };
  for (const request of requests) apply(request, results);
  return results;
});

const BUSY_RETRY_MS = 10;
const BUSY_GIVE_UP_MS = 2000;

function commit(requests: DecodedRequest[]): void {
  const started = performance.now();
  if (commitDelayMs > 0) sleep(commitDelayMs);
  let results: WriteResults | null = null;
  let error = '';
  // A checkpoint may hold the lock for a moment; a busy commit is retried briefly before the
  // batch is refused (503: retryable, never a 2xx).
  // Give up by elapsed time, not a count of tries: one try can itself wait out SQLite's busy timeout.
  while (results === null) {
    try {
      results = commitBatch(requests);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      error = e.code ? `${e.code}: ${e.message ?? ''}` : String(e.message ?? err);
      if (!e.code?.startsWith('SQLITE_BUSY') || performance.now() - started >= BUSY_GIVE_UP_MS) break;
      sleep(BUSY_RETRY_MS);
    }
  }
  // On failure the whole transaction rolled back: nothing in it is stored or acknowledged.
  send({
    type: 'results',
    results: results ?? { tickets: requests.map((r) => r.ticket), outcomes: [], deliverySeqs: [], attemptSeqs: [], error },
    commit: { ms: performance.now() - started, size: requests.length },
  });
  finishCheckpoint();
}

/**
 * The checkpoint thread copies the WAL off the commit path, but under steady intake it never
 * finishes (frames arrive while it copies), and SQLite starts the WAL over only when a write
 * begins on a fully copied WAL. Measured: the bench load grew the WAL to 240 MB in 6 s, every
 * read and commit slowed with it, and the RESTART that was meant to bound it held the write lock
 * for 36–143 ms. So once the WAL passes a bound, the writer, between two commits, copies what the
 * thread has not yet (a PASSIVE of its own); its next commit starts the WAL over. Below the bound
 * (any load the thread keeps up with) the writer never pays for a checkpoint. A reader holding an
 * old snapshot only delays this until it lets go.
 *
 * The WAL in use comes from SQLite itself after every commit: `wal_checkpoint(NOOP)` reads the WAL
 * index's frame counts, copying nothing and waiting on no lock (~7 µs a call in a loop; busy, and
 * skipped, while another process is mid-commit), and it counts every process's frames (a `db prune` or `events replay` beside a running listen writes too). Before
 * session 17 the writer used the frames the checkpoint thread last saw, so until the thread's first
 * pass (it starts at the first delivery: sqlite-store.ts) the WAL grew unchecked: 39 MiB of
 * 256 KiB deliveries against a bound of 8 in a loaded CI.
 */
const frameBytes = (db.pragma('page_size', { simple: true }) as number) + 24;
/** The result row of `PRAGMA wal_checkpoint`: `log` frames in the WAL, `checkpointed` of them copied (−1 when busy). */
type CheckpointResult = { busy: number; log: number; checkpointed: number };
const walState = db.prepare<[], CheckpointResult>('PRAGMA wal_checkpoint(NOOP)');
function finishCheckpoint(): void {
  try {
    const wal = walState.get();
    // Fully copied already: the next commit starts the WAL over, unless a reader still holds it.
    if (!wal || wal.log * frameBytes < walRestartBytes || wal.checkpointed >= wal.log) return;
    db.pragma('wal_checkpoint(PASSIVE)'); // busy while the thread checkpoints: the next commit looks again
  } catch {
    /* an I/O error: the next commit looks again */
  }
}

const unpack = (packed: Uint8Array) => decodeBatch(Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength));

let closing = false;
function handle(message: ToWriter): void {
  if (message.type === 'close') {
    closing = true;
    return;
  }
  let pending = unpack(message.packed);
  // Drain everything that queued up during the last commit into this one.
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    const m = next.message as ToWriter;
    if (m.type === 'close') closing = true;
    else pending = pending.concat(unpack(m.packed));
  }
  commit(pending);
}

port.on('message', (message: ToWriter) => {
  handle(message);
  if (closing) {
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      /* a busy reader only delays the truncate until the next open */
    }
    db.close();
    send({ type: 'closed' });
    port.close();
  }
});

send({ type: 'ready' });
