/** Row shapes both SQL drivers share (same column names), and their mapping to the store's records. */
import type { AttemptOutcome, AttemptRecord, KeptAnswer, RelayAttemptRecord, RelayJob } from './store.js';

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
  /** Absent when read from a file of schema 5 or older (a reader never migrates). */
  target?: string | null;
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
  return { deliverySeq, deliveryId, state: row.state, target: row.target ?? null, tries: row.tries, nextAt: row.next_at, lastStatus: row.last_status, lastError: row.last_error };
}

/** The relay try columns every read takes: never the kept answer (its body is up to 4 KiB). */
export const RELAY_ATTEMPT_COLUMNS = 'seq, delivery_seq, started_at, finished_at, status, error, replay, target, try';

/** The kept answer's columns (schema 5 on SQLite, 4 on PostgreSQL), read only `withAnswers`. */
export const ANSWER_COLUMNS = 'answer_header_lines, answer_body_bytes, answer_complete, answer_headers, answer_body';

/** The same columns as NULLs, for a reader of a schema from before answers were kept: every try reads as not kept. */
export const ANSWER_COLUMNS_ABSENT = ANSWER_COLUMNS.split(', ').map((c) => `NULL AS ${c}`).join(', ');

/** A relay try row read with its kept answer. */
export interface AnswerRow extends RelayAttemptRow {
  answer_header_lines: number | null;
  answer_body_bytes: number | null;
  /** SQLite stores 0/1, PostgreSQL a boolean. */
  answer_complete: number | boolean | null;
  /** JSON [[name, value], …]. */
  answer_headers: string | null;
  answer_body: Buffer | null;
}

/** The kept answer of a row, or null when it has none (no answer, or a try recorded before answers were kept). */
export function toKeptAnswer(r: AnswerRow): KeptAnswer | null {
  if (r.answer_headers === null || r.answer_headers === undefined) return null;
  let headers: Array<[string, string]> = [];
  try {
    const parsed: unknown = JSON.parse(r.answer_headers);
    if (Array.isArray(parsed)) headers = parsed.filter((h): h is [string, string] => Array.isArray(h) && h.length === 2).map(([n, v]) => [String(n), String(v)]);
  } catch {
    /* a damaged column: no headers rather than no history */
  }
  return {
    headers,
    headerLines: r.answer_header_lines ?? headers.length,
    body: r.answer_body ?? Buffer.alloc(0),
    bodyBytes: r.answer_body_bytes ?? 0,
    complete: r.answer_complete === true || r.answer_complete === 1,
  };
}

export function toRelayAttempt(r: RelayAttemptRow): RelayAttemptRecord {
  return {
    seq: r.seq, deliverySeq: r.delivery_seq, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status,
    error: r.error, replay: r.replay === true || r.replay === 1, target: r.target, try: r.try,
  };
}
