/** Row shapes both SQL drivers share (same column names), and their mapping to the store's records. */
import type { AttemptOutcome, AttemptRecord, RelayAttemptRecord, RelayJob } from './store.js';

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
  /** JSON array text (SQLite) or text[] (PostgreSQL); null when there are none. */
  hints: string | string[] | null;
}

/** The attempt columns every list reads: never the kept request (its body can be large). */
export const ATTEMPT_COLUMNS =
  'seq, delivery_id, trigger, received_at, finished_at, attempt_header, signature_t, body_sha256, body_bytes, outcome, status, reason, retry_after, hints';

/** A rejection's hints as a column value: null when there are none. */
export function hintsColumn(hints: readonly string[] | undefined): string | null {
  return hints && hints.length > 0 ? JSON.stringify(hints) : null;
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
  /** SQLite stores 0/1, PostgreSQL a boolean. */
  replay: number | boolean;
  target: string;
  try: number;
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
    ...readHints(row.hints),
  };
}

function readHints(value: string | string[] | null): { hints?: string[] } {
  if (value === null) return {};
  if (Array.isArray(value)) return value.length > 0 ? { hints: value } : {};
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.length > 0 ? { hints: parsed.map(String) } : {};
  } catch {
    return {};
  }
}

export function toJob(deliverySeq: number, deliveryId: string, row: JobRow): RelayJob {
  return { deliverySeq, deliveryId, state: row.state, tries: row.tries, nextAt: row.next_at, lastStatus: row.last_status, lastError: row.last_error };
}

export function toRelayAttempt(r: RelayAttemptRow): RelayAttemptRecord {
  return {
    seq: r.seq, deliverySeq: r.delivery_seq, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status,
    error: r.error, replay: r.replay === true || r.replay === 1, target: r.target, try: r.try,
  };
}
