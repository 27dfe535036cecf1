/** Reading the Retry-After hookrelay sent, as a sender should have (spec 6.4 rule 1; RFC 9110 §10.2.3). */
import { parseRetryAfter } from '../retry-policy/retry-after.js';

/**
 * Seconds a Retry-After value asks to wait: delta-seconds (digits only), or an HTTP-date taken
 * relative to `answeredAtMs` (when hookrelay sent the answer; a date in the past asks for 0).
 * Returns null for anything else (fractions, negatives, free text, impossible dates: see
 * core/http-date.ts), which a sender ignores, falling back to its backoff. Never throws.
 */
export function retryAfterSeconds(value: string | null, answeredAtMs: number): number | null {
  // The sender's own reader: what the judge expects is exactly what hookrelay's sender reads.
  const read = parseRetryAfter(value, answeredAtMs);
  return read.ok ? read.seconds : null;
}

/**
 * Spec 6.4 names Retry-After for 429 ("retried, after Retry-After if sent") and 503 ("a 503 with
 * Retry-After is honoured"); on any other status a sender may ignore it.
 */
export function honoursRetryAfter(status: number | null): boolean {
  return status === 429 || status === 503;
}
