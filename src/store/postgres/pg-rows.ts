/** Rows of the PostgreSQL store and the records they become (BIGINT columns arrive as numbers: see pg-types.ts). */
import { toAttempt, type AttemptRow } from '../rows.js';
import type { AttemptRecord, StoredDelivery } from '../store.js';

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

/**
 * PostgreSQL text cannot hold U+0000; a hostile envelope field may. It is stored as U+FFFD
 * (the raw body, BYTEA, keeps the exact bytes). Applied to every text parameter alike, so a
 * lookup by such an id finds what was stored.
 */
export function pgText<T extends string | null>(value: T): T {
  return (value === null || !value.includes('\u0000') ? value : value.replaceAll('\u0000', '\uFFFD')) as T;
}

export function toDelivery(row: DeliveryRow): StoredDelivery {
  const headers = pairs(row.headers);
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

/** Flat name, value, name, value… as pairs. */
function pairs(flat: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** An attempt row read with its kept request (`withRequest`). */
export interface RequestRow extends AttemptRow {
  request_headers?: string[] | null;
  request_body?: Buffer | null;
}

export function toAttemptWith(row: RequestRow, withRequest: boolean): AttemptRecord {
  const attempt = toAttempt(row);
  if (!withRequest) return attempt;
  const flat = row.request_headers ?? null;
  return { ...attempt, request: flat === null ? null : { headers: pairs(flat), body: row.request_body ?? null } };
}

export { toAttempt, toJob, toKeptAnswer, toRelayAttempt, type AnswerRow, type AttemptRow, type JobRow, type RelayAttemptRow } from '../rows.js';
