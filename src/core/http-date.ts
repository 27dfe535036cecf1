/**
 * The one HTTP-date reader (RFC 9110 §5.6.7), used by the sender (Retry-After, spec 6.4 rule 1),
 * by `check`'s judge and by the fault rules that write a Retry-After date.
 *
 * It accepts all three forms, as RFC 9110 says a recipient MUST:
 *
 *   IMF-fixdate  `Sun, 06 Nov 1994 08:49:37 GMT`   (the one a sender should generate)
 *   rfc850-date  `Sunday, 06-Nov-94 08:49:37 GMT`  (two-digit year: see below)
 *   asctime-date `Sun Nov  6 08:49:37 1994`        (always UTC)
 *
 * and nothing else: no other zone than GMT, no ISO 8601, no lower-case names (the grammar's day
 * and month names are case-sensitive). It refuses what no calendar holds: a day past the month's
 * end (30 Feb, 31 Apr, 29 Feb outside a leap year), day 00, hour 24, minute 60, and a second 60
 * anywhere but 23:59:60 (the leap second the grammar allows; read as the next day's 00:00:00,
 * the instant POSIX time gives it, so a wait is never read shorter than the date says).
 *
 * A weekday that does not match the date is refused too. The grammar spells the weekday out, and
 * a date that contradicts itself gives no way to tell which half is wrong; guessing would make the
 * sender and the judge disagree with some other reader. Refusing means a sender falls back to its
 * backoff, which is what spec 6.4 says to do with a Retry-After it cannot read.
 */

export type HttpDateForm = 'imf-fixdate' | 'rfc850' | 'asctime';

export type HttpDate =
  | { ok: true; ms: number; form: HttpDateForm }
  /** `form` is the form the text had the shape of, when it had one. */
  | { ok: false; reason: 'malformed' | 'impossible_date' | 'wrong_weekday'; form?: HttpDateForm };

const DAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Za-z]+), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// asctime's day is two digits or a space and one digit.
const ASCTIME_DATE = /^([A-Za-z]{3}) ([A-Za-z]{3}) (\d{2}| \d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

interface Fields {
  weekday: string;
  weekdays: readonly string[];
  year: number;
  month: string;
  day: string;
  time: [string, string, string];
}

/**
 * Reads an HTTP-date (the text as it stands: the caller trims) into milliseconds since the epoch.
 * `nowMs` is needed only for an rfc850-date's two-digit year, which RFC 9110 places in the
 * century that puts it at most 50 years in the future. Refuses with `malformed` (none of the three
 * forms; also an rfc850-date when `nowMs` is no date), `impossible_date` (no such day or time) or
 * `wrong_weekday`. Never throws.
 */
export function readHttpDate(text: string, nowMs: number): HttpDate {
  let m = IMF_FIXDATE.exec(text);
  if (m) return check('imf-fixdate', { weekday: m[1]!, weekdays: DAY_SHORT, year: Number(m[4]), month: m[3]!, day: m[2]!, time: [m[5]!, m[6]!, m[7]!] });
  m = RFC850_DATE.exec(text);
  if (m) {
    const year = fullYear(Number(m[4]), nowMs);
    if (!Number.isFinite(year)) return { ok: false, reason: 'malformed', form: 'rfc850' };
    return check('rfc850', { weekday: m[1]!, weekdays: DAY_LONG, year, month: m[3]!, day: m[2]!, time: [m[5]!, m[6]!, m[7]!] });
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return check('asctime', { weekday: m[1]!, weekdays: DAY_SHORT, year: Number(m[7]), month: m[2]!, day: m[3]!.trim(), time: [m[4]!, m[5]!, m[6]!] });
  return { ok: false, reason: 'malformed' };
}

/** An instant as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`); milliseconds are dropped. */
export function formatImfFixdate(ms: number): string {
  return new Date(ms).toUTCString();
}

function check(form: HttpDateForm, f: Fields): HttpDate {
  const weekday = f.weekdays.indexOf(f.weekday);
  const month = MONTHS.indexOf(f.month);
  if (weekday < 0 || month < 0) return { ok: false, reason: 'malformed', form };
  const day = Number(f.day);
  const [h, mi, s] = f.time.map(Number) as [number, number, number];
  const leapSecond = s === 60 && h === 23 && mi === 59;
  if (day < 1 || day > daysInMonth(f.year, month) || h > 23 || mi > 59 || (s > 59 && !leapSecond)) {
    return { ok: false, reason: 'impossible_date', form };
  }
  // setUTCFullYear, unlike Date.UTC, does not map the years 0-99 to 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(f.year, month, day);
  if (date.getUTCDay() !== weekday) return { ok: false, reason: 'wrong_weekday', form };
  // 23:59:60 rolls over to the next day's 00:00:00.
  return { ok: true, ms: date.setUTCHours(h, mi, s, 0), form };
}

function daysInMonth(year: number, month: number): number {
  if (month !== 1) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month]!;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
function fullYear(twoDigits: number, nowMs: number): number {
  const currentYear = new Date(nowMs).getUTCFullYear();
  let year = Math.floor(currentYear / 100) * 100 + twoDigits;
  if (year > currentYear + 50) year -= 100;
  return year;
}
