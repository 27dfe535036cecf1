/**
 * Checks of single rule fields, shared by the one-line and the JSON parser. Each refuses with
 * a `problem` phrase ("must be …") that the caller prefixes with the field's name or JSON path.
 */
import {
  MAX_BODY_LENGTH,
  MAX_DELAY_MS,
  MAX_GLOB_LENGTH,
  MAX_HEADER_VALUE_LENGTH,
  MAX_HOPS,
  MAX_ID_LENGTH,
  MAX_TIMES,
  REDIRECT_STATUSES,
  type RedirectStatus,
} from './rule.js';

export type Check<T> = { ok: true; value: T } | { ok: false; problem: string };

// -0 would print as 0 and so not survive a round trip: it is read as 0.
const ok = <T>(value: T): Check<T> => ({ ok: true, value: Object.is(value, -0) ? (0 as T) : value });
const no = (problem: string): Check<never> => ({ ok: false, problem });

const isInt = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n);

/** A status for a `status` answer: an integer 100-599. */
export function checkStatus(n: unknown): Check<number> {
  return isInt(n) && n >= 100 && n <= 599 ? ok(n) : no('must be an integer 100-599');
}

export function checkRedirectStatus(n: unknown): Check<RedirectStatus> {
  return isInt(n) && (REDIRECT_STATUSES as readonly number[]).includes(n)
    ? ok(n as RedirectStatus)
    : no('must be 301, 302, 303, 307 or 308');
}

/** Only 307 and 308 keep the method and body, so only they can chain hops that end in a delivery. */
export function keepsPost(status: RedirectStatus): boolean {
  return status === 307 || status === 308;
}

export function checkHops(n: unknown): Check<number> {
  return isInt(n) && n >= 1 && n <= MAX_HOPS ? ok(n) : no(`must be an integer from 1 to ${MAX_HOPS}`);
}

export function checkDelayMs(n: unknown): Check<number> {
  return isInt(n) && n >= 0 && n <= MAX_DELAY_MS ? ok(n) : no(`must be an integer number of milliseconds from 0 to ${MAX_DELAY_MS}`);
}

export function checkTimes(n: unknown): Check<number> {
  return isInt(n) && n >= 1 && n <= MAX_TIMES ? ok(n) : no(`must be an integer from 1 to ${MAX_TIMES}`);
}

export function checkProbability(n: unknown): Check<number> {
  return typeof n === 'number' && n >= 0 && n <= 1 ? ok(n) : no('must be a number from 0 to 1');
}

/** A glob for `trigger` or `delivery`: non-empty, printable, at most MAX_GLOB_LENGTH characters. */
export function checkGlob(s: unknown): Check<string> {
  if (typeof s !== 'string' || s.length === 0) return no('must be a non-empty text');
  if (s.length > MAX_GLOB_LENGTH) return no(`must be at most ${MAX_GLOB_LENGTH} characters`);
  if (hasControl(s)) return no('must not contain control characters');
  return ok(s);
}

const ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_ID_LENGTH - 1}}$`);

export function checkId(s: unknown): Check<string> {
  return typeof s === 'string' && ID.test(s)
    ? ok(s)
    : no(`must be 1-${MAX_ID_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit`);
}

// RFC 9110 5.1 field-name = token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What node's http layer lets through in a header value (tab, printable ASCII, obs-text).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** hookrelay frames every response itself: a rule cannot set these. */
export const RESERVED_HEADERS: readonly string[] = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade'];

export function checkHeaderName(s: unknown): Check<string> {
  if (typeof s !== 'string' || !TOKEN.test(s) || s.length > 128) {
    return no('must be a header name of 1-128 token characters (letters, digits, -, _ …)');
  }
  // A JSON object puts integer-like keys first, so such a name would not keep its place.
  if (/^[0-9]+$/.test(s)) return no('must not be all digits');
  if (RESERVED_HEADERS.includes(s.toLowerCase())) return no(`must not be ${s.toLowerCase()}: hookrelay frames the response itself`);
  return ok(s);
}

export function checkHeaderValue(s: unknown): Check<string> {
  if (typeof s !== 'string') return no('must be a text');
  if (s.length > MAX_HEADER_VALUE_LENGTH) return no(`must be at most ${MAX_HEADER_VALUE_LENGTH} characters`);
  if (!FIELD_VALUE.test(s)) return no('must hold only tab, printable ASCII or Latin-1 characters (no line breaks)');
  // RFC 9110 5.5: surrounding whitespace is not part of a field value.
  if (/^[ \t]|[ \t]$/.test(s)) return no('must not start or end with whitespace');
  return ok(s);
}

export function checkBody(s: unknown): Check<string> {
  if (typeof s !== 'string') return no('must be a text');
  return s.length <= MAX_BODY_LENGTH ? ok(s) : no(`must be at most ${MAX_BODY_LENGTH} characters`);
}

/** 1xx, 204, 205 and 304 responses carry no body (RFC 9110 15.2, 15.3.5, 15.3.6, 15.4.5). */
export function statusAllowsBody(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 205 && status !== 304;
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) return true;
  }
  return false;
}
