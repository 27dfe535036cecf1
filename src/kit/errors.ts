/**
 * What an adapter answers when it refuses a delivery: the receiver's codes and statuses
 * (one table: src/core/refusal-codes.ts), the spec's error
 * envelope (section 7), and the hints `hookrelay verify` gives.
 */
import { errorEnvelope as spec7Envelope, successEnvelopeText } from '../core/error-envelope.js';
import type { VerifyFailure } from '../core/signature/verify-verdict.js';

export { ENVELOPE_CODES, SIGNATURE_CODES } from '../core/refusal-codes.js';
export type { EnvelopeProblem } from '../core/envelope-types.js';

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
export const successEnvelope: (data: Record<string, unknown>, nowMs: number) => string = successEnvelopeText;

/**
 * The answer when the app's own handler failed. Its message is fixed: the error's own ("db down",
 * a stack) is the app's business and stays in its logs, never in the answer to the sender. The
 * adapters' own refusals (HANDLER_FAILED, RAW_BODY_UNAVAILABLE, DEDUPE_UNAVAILABLE) are 5xx on
 * purpose: the fault is this app's, and a 5xx makes the service retry (spec 6.4) instead of dropping
 * the delivery as a 4xx would.
 */
export function handlerFailed(cause: unknown): WebhookError {
  return new WebhookError('HANDLER_FAILED', 500, 'the webhook handler failed; the service retries the delivery', { cause });
}
