/**
 * The writer thread: the only connection that writes. Group commit — every request that
 * arrived while the previous transaction was committing goes into the next one, so many
 * deliveries share one fsync, and each is answered only after the commit that holds it.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { deliveryKey } from '../delivery-key.js';
import { openDatabase } from './open-database.js';
import { migrate } from './schema.js';
import type { FromWriter, ToWriter, WriteRequest, WriteResult, WriterData } from './writer-protocol.js';
import type { AttemptInput } from '../store.js';

const { path, port, commitDelayMs } = workerData as WriterData & { port: MessagePort };
// A slow-disk simulation for crash tests: widens the window between receiving and committing.
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
const send = (message: FromWriter) => port.postMessage(message);

let db: ReturnType<typeof openDatabase>;
try {
  db = openDatabase(path);
  migrate(db);
} catch (err) {
  send({ type: 'fatal', error: (err as Error).message });
  throw err;
}

const findDelivery = db.prepare<[number, string], { seq: number }>('SELECT seq FROM deliveries WHERE id_key = ? AND id = ?');
const insertDelivery = db.prepare(
  `INSERT INTO deliveries (id_key, id, trigger, api_version, api_version_known, received_at, signature, secret_index, signature_t, headers, raw_body, last_attempt_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const countDuplicate = db.prepare('UPDATE deliveries SET duplicate_count = duplicate_count + 1, last_attempt_at = ? WHERE seq = ?');
const insertAttempt = db.prepare(
  `INSERT INTO attempts (delivery_seq, delivery_key, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

function recordAttempt(attempt: AttemptInput, deliverySeq: number | null, outcome: string): void {
  insertAttempt.run(
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
  );
}

function apply(request: WriteRequest): WriteResult {
  if (request.kind === 'attempt') {
    recordAttempt(request.attempt, null, request.attempt.outcome);
    return { ticket: request.ticket, ok: true, outcome: 'recorded', deliverySeq: 0 };
  }
  const { delivery, attempt } = request;
  const key = deliveryKey(delivery.id);
  const existing = findDelivery.get(key, delivery.id);
  if (existing) {
    countDuplicate.run(attempt.receivedAt, existing.seq);
    recordAttempt(attempt, existing.seq, 'duplicate');
    return { ticket: request.ticket, ok: true, outcome: 'duplicate', deliverySeq: existing.seq };
  }
  const headers = joinHeaders(delivery.rawHeaders);
  const seq = Number(
    insertDelivery.run(
      key,
      delivery.id,
      delivery.trigger,
      delivery.apiVersion,
      delivery.apiVersionKnown ? 1 : 0,
      delivery.receivedAt,
      delivery.signature,
      delivery.secretIndex,
      delivery.signatureTimestamp,
      headers,
      delivery.rawBody,
      attempt.receivedAt,
    ).lastInsertRowid,
  );
  recordAttempt(attempt, seq, 'accepted');
  return { ticket: request.ticket, ok: true, outcome: 'accepted', deliverySeq: seq };
}

/** Header lines `name: value\n`; HTTP forbids CR/LF inside names and values, so this is lossless. */
function joinHeaders(raw: readonly string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\n`;
  return out;
}

const commitBatch = db.transaction((requests: WriteRequest[]) => requests.map(apply));

function commit(requests: WriteRequest[]): void {
  let results: WriteResult[];
  if (commitDelayMs > 0) Atomics.wait(sleepCell, 0, 0, commitDelayMs);
  try {
    results = commitBatch(requests);
  } catch (err) {
    // The whole transaction rolled back: nothing in it is stored, so nothing is acknowledged.
    const error = describe(err);
    results = requests.map((r) => ({ ticket: r.ticket, ok: false as const, error }));
  }
  send({ type: 'results', results });
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code ? `${e.code}: ${e.message ?? ''}` : String(e.message ?? err);
}

let closing = false;
function handle(message: ToWriter): void {
  if (message.type === 'close') {
    closing = true;
    return;
  }
  let pending = message.requests;
  // Drain everything that queued up during the last commit into this one.
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    const m = next.message as ToWriter;
    if (m.type === 'close') closing = true;
    else pending = pending.concat(m.requests);
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
