/**
 * What an adapter answers when it refuses a delivery: the receiver's codes and statuses
 * (src/ingest/rejection.ts; test/kit/errors.test.ts holds the two tables equal), the spec's error
 * envelope (section 7), and the hints `hookrelay verify` gives.
 */
import { errorEnvelope as spec7Envelope } from '../core/error-envelope.js';
import type { VerifyFailure } from '../core/signature/verify-verdict.js';

/** Why the envelope check refused a body (the receiver's envelope codes). */
export type EnvelopeProblem = 'invalid_json' | 'invalid_envelope' | 'delivery_id_mismatch' | 'event_type_mismatch';

export const SIGNATURE_CODES: Readonly<Record<VerifyFailure, string>> = Object.freeze({
  missing: 'SIGNATURE_MISSING',
  malformed: 'SIGNATURE_MALFORMED',
  no_signatures: 'SIGNATURE_NO_V1',
  mismatch: 'SIGNATURE_MISMATCH',
  timestamp_too_old: 'TIMESTAMP_TOO_OLD',
  timestamp_in_future: 'TIMESTAMP_IN_FUTURE',
});

export const ENVELOPE_CODES: Readonly<Record<EnvelopeProblem, string>> = Object.freeze({
  invalid_json: 'INVALID_JSON',
  invalid_envelope: 'INVALID_ENVELOPE',
  delivery_id_mismatch: 'DELIVERY_ID_MISMATCH',
  event_type_mismatch: 'EVENT_TYPE_MISMATCH',
});

/**
 * Codes of the adapters beyond the receiver's. RAW_BODY_UNAVAILABLE, DEDUPE_UNAVAILABLE and
 * HANDLER_FAILED are 5xx on purpose: the fault is this app's, and a 5xx makes the service retry
 * (spec 6.4) instead of dropping the delivery as a 4xx would.
 */
export type KitErrorCode = 'PAYLOAD_TOO_LARGE' | 'RAW_BODY_UNAVAILABLE' | 'DEDUPE_UNAVAILABLE' | 'BODY_READ_FAILED' | 'HANDLER_FAILED';

/** A refused delivery: `code` and `status` as the receiver answers, `hints` on what to do. */
export class WebhookError extends Error {
  readonly code: string;
  readonly status: number;
  readonly hints: readonly string[];
  /** The signature check's reason, when it refused. */
  readonly reason?: VerifyFailure;

  constructor(code: string, status: number, message: string, options: { hints?: readonly string[]; reason?: VerifyFailure; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebhookError';
    this.code = code;
    this.status = status;
    this.hints = options.hints ?? [];
    if (options.reason !== undefined) this.reason = options.reason;
  }
}

/** The spec's error envelope (section 7) for a refusal; hints travel in `details`. */
export function errorEnvelope(error: WebhookError, nowMs: number): string {
  return JSON.stringify(spec7Envelope(error.code, error.message, nowMs, error.hints.length > 0 ? { details: { hints: error.hints } } : {}));
}

/** The spec's success envelope (section 2.1) an adapter answers a verified delivery with. */
export function successEnvelope(data: Record<string, unknown>, nowMs: number): string {
  return JSON.stringify({ success: true, data, timestamp: new Date(nowMs).toISOString() });
}

/**
 * The answer when the app's own handler failed. Its message is fixed: the error's own ("db down",
 * a stack) is the app's business and stays in its logs, never in the answer to the sender.
 */
export function handlerFailed(cause: unknown): WebhookError {
  return new WebhookError('HANDLER_FAILED', 500, 'the webhook handler failed; the service retries the delivery', { cause });
}
