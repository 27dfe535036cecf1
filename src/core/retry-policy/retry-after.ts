/** Retry-After parsing (RFC 9110 §10.2.3) for spec 6.4 rule 1. */

export type RetryAfter =
  | { ok: true; seconds: number; form: 'seconds' | 'http_date' }
  | { ok: false; reason: 'absent' | 'unparseable' };

const DAY_SHORT = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const DAY_LONG = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const DELTA_SECONDS = /^\d+$/;
const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Za-z]+), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Za-z]{3}) ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * How many seconds a Retry-After value asks to wait, measured from `nowMs`: delta-seconds, or
 * an HTTP-date in any of the three RFC 9110 forms (a date in the past asks for 0). Refuses
 * (`unparseable`) anything else, such as fractions, negatives or free text; never throws.
 * The caller clamps the result to [10 s, maxDelaySeconds] (spec 6.4 rule 1).
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
  const dateMs = parseHttpDate(text, nowMs);
  if (dateMs === undefined) return { ok: false, reason: 'unparseable' };
  return { ok: true, seconds: Math.max(0, (dateMs - nowMs) / 1000), form: 'http_date' };
}

/** Milliseconds since the epoch of an HTTP-date (IMF-fixdate, RFC 850, asctime), or undefined. */
export function parseHttpDate(text: string, nowMs: number): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) {
    if (!DAY_SHORT.includes(m[1]!)) return undefined;
    return utc(Number(m[4]), m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!);
  }
  m = RFC850_DATE.exec(text);
  if (m) {
    if (!DAY_LONG.includes(m[1]!)) return undefined;
    return utc(fullYear(Number(m[4]), nowMs), m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) {
    if (!DAY_SHORT.includes(m[1]!)) return undefined;
    return utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), m[4]!, m[5]!, m[6]!);
  }
  return undefined;
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
function fullYear(twoDigits: number, nowMs: number): number {
  const currentYear = new Date(nowMs).getUTCFullYear();
  let year = Math.floor(currentYear / 100) * 100 + twoDigits;
  if (year > currentYear + 50) year -= 100;
  return year;
}

function utc(year: number, monthName: string, day: number, hh: string, mm: string, ss: string): number | undefined {
  const month = MONTHS.indexOf(monthName);
  const [h, mi, s] = [Number(hh), Number(mm), Number(ss)];
  if (month < 0 || h > 23 || mi > 59 || s > 60) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const back = new Date(0);
  back.setUTCFullYear(year, month, day);
  const ms = back.setUTCHours(h, mi, Math.min(s, 59), 0);
  // Refuse dates that roll over (Feb 30 and the like).
  if (Number.isNaN(ms) || back.getUTCDate() !== day || back.getUTCMonth() !== month) return undefined;
  return ms;
}
