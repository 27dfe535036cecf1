/** Rows of the PostgreSQL store and the records they become (BIGINT columns arrive as numbers: see pg-types.ts). */
import type { AttemptOutcome, AttemptRecord, RelayAttemptRecord, RelayJob, StoredDelivery } from '../store.js';

export interface DeliveryRow {
  seq: number;
  id: string;
  trigger: string;
  api_version: string;
  api_version_known: boolean;
  received_at: number;
  signature: 'valid' | 'skipped';
  secret_index: number | null;
  signature_t: number | null;
  headers: string[];
  raw_body: Buffer;
  duplicate_count: number;
  last_attempt_at: number;
}

export interface AttemptRow {
  seq: number;
  delivery_id: string | null;
  trigger: string | null;
  received_at: number;
  finished_at: number;
  attempt_header: number | null;
  signature_t: number | null;
  body_sha256: string;
  body_bytes: number;
  outcome: AttemptOutcome;
  status: number | null;
  reason: string | null;
  retry_after: string | null;
}

export interface JobRow {
  state: RelayJob['state'];
  tries: number;
  next_at: number;
  last_status: number | null;
  last_error: string | null;
}

export interface RelayAttemptRow {
  seq: number;
  delivery_seq: number;
  started_at: number;
  finished_at: number;
  status: number | null;
  error: string | null;
  replay: boolean;
  target: string;
  try: number;
}

/**
 * PostgreSQL text cannot hold U+0000; a hostile envelope field may. It is stored as U+FFFD
 * (the raw body, BYTEA, keeps the exact bytes). Applied to every text parameter alike, so a
 * lookup by such an id finds what was stored.
 */
export function pgText<T extends string | null>(value: T): T {
  return (value === null || !value.includes('\u0000') ? value : value.replaceAll('\u0000', '\uFFFD')) as T;
}

export function toDelivery(row: DeliveryRow): StoredDelivery {
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < row.headers.length; i += 2) headers.push([row.headers[i]!, row.headers[i + 1]!]);
  return {
    seq: row.seq,
    id: row.id,
    trigger: row.trigger,
    apiVersion: row.api_version,
    apiVersionKnown: row.api_version_known,
    receivedAt: row.received_at,
    signature: row.signature,
    secretIndex: row.secret_index,
    signatureTimestamp: row.signature_t,
    headers,
    rawBody: row.raw_body,
    duplicateCount: row.duplicate_count,
    lastAttemptAt: row.last_attempt_at,
  };
}

export function toAttempt(row: AttemptRow): AttemptRecord {
  return {
    seq: row.seq,
    deliveryId: row.delivery_id,
    trigger: row.trigger,
    receivedAt: row.received_at,
    finishedAt: row.finished_at,
    attemptHeader: row.attempt_header,
    signatureTimestamp: row.signature_t,
    bodySha256: row.body_sha256,
    bodyBytes: row.body_bytes,
    outcome: row.outcome,
    status: row.status,
    reason: row.reason,
    retryAfter: row.retry_after,
  };
}

export function toJob(deliverySeq: number, deliveryId: string, row: JobRow): RelayJob {
  return {
    deliverySeq,
    deliveryId,
    state: row.state,
    tries: row.tries,
    nextAt: row.next_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
  };
}

export function toRelayAttempt(r: RelayAttemptRow): RelayAttemptRecord {
  return {
    seq: r.seq, deliverySeq: r.delivery_seq, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status,
    error: r.error, replay: r.replay, target: r.target, try: r.try,
  };
}
