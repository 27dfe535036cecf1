/**
 * The Retry-After value of a fault answer (spec 6.4 rule 1: seconds or an HTTP date), in its
 * text form (`120`, `+120s`, `'Wed, 21 Oct 2026 07:28:00 GMT'`) and as the header sent.
 */
import { formatImfFixdate, readHttpDate } from '../http-date.js';
import { MAX_RETRY_AFTER_SECONDS, type RetryAfterSpec } from './rule.js';

export { formatImfFixdate };

export type RetryAfterParse = { ok: true; value: RetryAfterSpec } | { ok: false; problem: string };

export const RETRY_AFTER_FORMS =
  "must be seconds (120), a date relative to the answer (+120s) or an HTTP date ('Wed, 21 Oct 2026 07:28:00 GMT')";

const SECONDS = /^[0-9]{1,10}$/;
const RELATIVE = /^([+-])([0-9]{1,10})s$/;

/**
 * Whether `text` is an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 5.6.7, the form a
 * sender must read) that the shared reader takes, weekday included, and that formats back to the
 * same text (so a leap second 23:59:60, which would be sent as another text, is refused).
 */
export function isImfFixdate(text: string): boolean {
  const date = readHttpDate(text, 0);
  return date.ok && date.form === 'imf-fixdate' && formatImfFixdate(date.ms) === text;
}

/**
 * Reads the text form of a Retry-After: digits are seconds, `+Ns` / `-Ns` a date N seconds
 * after / before the answer, otherwise an IMF-fixdate. Refuses anything else with a
 * `problem` phrase ("must be …") for the caller to prefix with the field name.
 */
export function parseRetryAfterText(text: string): RetryAfterParse {
  if (SECONDS.test(text)) return secondsSpec(Number(text));
  const rel = RELATIVE.exec(text);
  if (rel) {
    const n = Number(rel[2]);
    if (n > MAX_RETRY_AFTER_SECONDS) return { ok: false, problem: `must be at most ${MAX_RETRY_AFTER_SECONDS} seconds away` };
    return { ok: true, value: { kind: 'relative', seconds: rel[1] === '-' && n !== 0 ? -n : n } };
  }
  if (isImfFixdate(text)) return { ok: true, value: { kind: 'date', date: text } };
  const date = readHttpDate(text, 0);
  if (date.form === 'imf-fixdate' && (date.ok || date.reason !== 'malformed')) {
    return { ok: false, problem: 'is not a real date (check the weekday and the day of the month)' };
  }
  return { ok: false, problem: RETRY_AFTER_FORMS };
}

/** Checks a number of seconds: an integer from 0 to MAX_RETRY_AFTER_SECONDS. */
export function secondsSpec(n: number): RetryAfterParse {
  if (!Number.isInteger(n) || n < 0 || n > MAX_RETRY_AFTER_SECONDS) {
    return { ok: false, problem: `must be an integer number of seconds from 0 to ${MAX_RETRY_AFTER_SECONDS}` };
  }
  return { ok: true, value: { kind: 'seconds', seconds: n === 0 ? 0 : n } };
}

/** The text form of a Retry-After spec; `parseRetryAfterText` reads it back to the same spec. */
export function formatRetryAfterText(spec: RetryAfterSpec): string {
  switch (spec.kind) {
    case 'seconds':
      return String(spec.seconds);
    case 'date':
      return spec.date;
    case 'relative':
      return `${spec.seconds < 0 ? '-' : '+'}${Math.abs(spec.seconds)}s`;
  }
}

/**
 * The `Retry-After` header value to send at `nowMs`. A relative spec becomes an IMF-fixdate
 * rounded up to the next whole second, so the sender is asked to wait at least that long.
 */
export function resolveRetryAfter(spec: RetryAfterSpec, nowMs: number): string {
  switch (spec.kind) {
    case 'seconds':
      return String(spec.seconds);
    case 'date':
      return spec.date;
    case 'relative':
      return formatImfFixdate(Math.ceil((nowMs + spec.seconds * 1000) / 1000) * 1000);
  }
}
