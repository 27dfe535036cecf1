/** Retry-After parsing (RFC 9110 §10.2.3) for spec 6.4 rule 1: the sender's, and the judge's through it. */
import { readHttpDate } from '../http-date.js';

export type RetryAfter =
  | { ok: true; seconds: number; form: 'seconds' | 'http_date' }
  | { ok: false; reason: 'absent' | 'unparseable' };

const DELTA_SECONDS = /^\d+$/;

/**
 * How many seconds a Retry-After value asks to wait, measured from `nowMs`: delta-seconds, or
 * an HTTP-date in any of the three RFC 9110 forms (a date in the past asks for 0; see
 * core/http-date.ts for the dates refused). Refuses (`unparseable`) anything else, such as
 * fractions, negatives, free text, 30 Feb or a wrong weekday, and a date when `nowMs` is not
 * finite; never throws. The caller clamps the result to [10 s, maxDelaySeconds] (spec 6.4 rule 1).
 */
export function parseRetryAfter(value: string | readonly string[] | null | undefined, nowMs: number): RetryAfter {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'absent' };
  const text = raw.trim();
  if (DELTA_SECONDS.test(text)) {
    // Very long digit strings stay finite and are capped later.
    const seconds = Math.min(Number(text), Number.MAX_SAFE_INTEGER);
    return { ok: true, seconds, form: 'seconds' };
  }
  if (!Number.isFinite(nowMs)) return { ok: false, reason: 'unparseable' };
  const date = readHttpDate(text, nowMs);
  if (!date.ok) return { ok: false, reason: 'unparseable' };
  return { ok: true, seconds: Math.max(0, (date.ms - nowMs) / 1000), form: 'http_date' };
}
