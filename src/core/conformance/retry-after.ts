/** Reading the Retry-After hookrelay sent, as a sender should have (spec 6.4 rule 1; RFC 9110 §10.2.3). */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Za-z]+), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Za-z]{3}) ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function utc(year: number, month: string, day: number, h: string, m: string, s: string): number | null {
  const mon = MONTHS.indexOf(month);
  if (mon < 0 || day < 1 || day > 31 || Number(h) > 23 || Number(m) > 59 || Number(s) > 60) return null;
  return Date.UTC(year, mon, day, Number(h), Number(m), Number(s));
}

/**
 * An HTTP-date (IMF-fixdate, RFC 850 or asctime, all UTC) as ms since the epoch, or null. A two
 * digit RFC 850 year more than 50 years after `nowMs` is in the previous century (RFC 9110 §5.6.7).
 */
function httpDate(text: string, nowMs: number): number | null {
  let m = IMF_FIXDATE.exec(text);
  if (m) return DAYS.includes(m[1]!) ? utc(Number(m[4]), m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!) : null;
  m = RFC850_DATE.exec(text);
  if (m) {
    if (!LONG_DAYS.includes(m[1]!)) return null;
    const current = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(current / 100) * 100 + Number(m[4]);
    if (year > current + 50) year -= 100;
    return utc(year, m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return DAYS.includes(m[1]!) ? utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), m[4]!, m[5]!, m[6]!) : null;
  return null;
}

/**
 * Seconds a Retry-After value asks to wait: delta-seconds (digits only), or an HTTP-date taken
 * relative to `answeredAtMs` (when hookrelay sent the answer; a date in the past asks for 0).
 * Returns null for anything else — fractions, negatives, free text — which a sender ignores,
 * falling back to its backoff. Never throws.
 */
export function retryAfterSeconds(value: string | null, answeredAtMs: number): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
  if (!Number.isFinite(answeredAtMs)) return null;
  const at = httpDate(text, answeredAtMs);
  return at === null ? null : Math.max(0, (at - answeredAtMs) / 1000);
}

/**
 * Spec 6.4 names Retry-After for 429 ("retried, after Retry-After if sent") and 503 ("a 503 with
 * Retry-After is honoured"); on any other status a sender may ignore it.
 */
export function honoursRetryAfter(status: number | null): boolean {
  return status === 429 || status === 503;
}
