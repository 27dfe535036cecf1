/**
 * The sender (core/retry-policy) and the judge (core/conformance) read Retry-After the same way:
 * a sender that waits as hookrelay's own sender does is never failed by `check` for it. They used
 * to carry separate HTTP-date parsers, and on `Mon, 30 Feb 2026 00:00:00 GMT` the sender said
 * "unparseable" while the judge read a wait of 5,184,000 s.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../src/core/conformance/retry-after.js';
import { isImfFixdate, resolveRetryAfter } from '../../src/core/faults/retry-after.js';
import { parseRetryAfter } from '../../src/core/retry-policy/retry-after.js';

const NOW = Date.UTC(2026, 1, 27, 9, 30, 15, 250); // Fri, 27 Feb 2026 09:30:15.250 GMT

/** What the sender reads, in the judge's terms: seconds to wait, or null (ignored). */
function senderReads(value: string, nowMs: number): number | null {
  const read = parseRetryAfter(value, nowMs);
  return read.ok ? read.seconds : null;
}

const CORPUS: Array<[string, number | null]> = [
  ['120', 120],
  [' 45 ', 45],
  ['0', 0],
  ['9'.repeat(30), Number.MAX_SAFE_INTEGER],
  ['Fri, 27 Feb 2026 09:32:15 GMT', 119.75],
  ['Friday, 27-Feb-26 09:32:15 GMT', 119.75],
  ['Fri Feb 27 09:32:15 2026', 119.75],
  ['Sat, 28 Feb 2026 09:30:15 GMT', 86_399.75],
  ['Sun, 01 Mar 2026 00:00:00 GMT', 138_584.75],
  ['Thu, 26 Feb 2026 00:00:00 GMT', 0], // in the past
  ['Thu, 31 Dec 2026 23:59:60 GMT', (Date.UTC(2027, 0, 1) - NOW) / 1000], // leap second
  // Impossible or inconsistent dates: both ignore them (the judge read the first as 5,184,000 s from 1 Jan).
  ['Mon, 30 Feb 2026 00:00:00 GMT', null],
  ['Sun, 29 Feb 2026 00:00:00 GMT', null],
  ['Thu, 31 Apr 2026 00:00:00 GMT', null],
  ['Sun, 01 Mar 2026 24:00:00 GMT', null],
  ['Sun, 01 Mar 2026 10:60:00 GMT', null],
  ['Sun, 01 Mar 2026 10:00:60 GMT', null],
  ['Mon, 01 Mar 2026 00:00:00 GMT', null], // 1 March 2026 is a Sunday
  ['Monday, 30-Feb-26 00:00:00 GMT', null],
  ['Mon Feb 30 00:00:00 2026', null],
  // Not Retry-After at all.
  ['soon', null],
  ['1.5', null],
  ['-5', null],
  ['1e3', null],
  ['0x10', null],
  ['Sun, 01 Mar 2026 00:00:00 UTC', null],
  ['2026-03-01T00:00:00Z', null],
  ['', null],
];

describe('the sender and the judge read Retry-After alike', () => {
  it.each(CORPUS)('%j → %s', (value, seconds) => {
    expect(senderReads(value, NOW)).toBe(seconds);
    expect(retryAfterSeconds(value, NOW)).toBe(seconds);
  });

  it('agree on generated dates in all three forms, real and impossible, with right and wrong weekdays', () => {
    const two = (n: number): string => String(n).padStart(2, '0');
    const short = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const long = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const date = fc
      .record({
        form: fc.constantFrom('imf', 'rfc850', 'asctime'),
        weekday: fc.integer({ min: 0, max: 6 }),
        day: fc.integer({ min: 0, max: 32 }),
        month: fc.integer({ min: 0, max: 11 }),
        year: fc.integer({ min: 1990, max: 2060 }),
        h: fc.integer({ min: 0, max: 24 }),
        m: fc.integer({ min: 0, max: 60 }),
        s: fc.integer({ min: 0, max: 61 }),
      })
      .map(({ form, weekday, day, month, year, h, m, s }) => {
        const time = `${two(h)}:${two(m)}:${two(s)}`;
        if (form === 'imf') return `${short[weekday]}, ${two(day)} ${months[month]} ${year} ${time} GMT`;
        if (form === 'rfc850') return `${long[weekday]}, ${two(day)}-${months[month]}-${two(year % 100)} ${time} GMT`;
        return `${short[weekday]} ${months[month]} ${String(day).padStart(2, ' ')} ${time} ${year}`;
      });
    fc.assert(
      fc.property(fc.oneof(date, fc.string({ maxLength: 30 })), fc.integer({ min: 0, max: 4_102_444_800_000 }), (value, now) => {
        expect(retryAfterSeconds(value, now)).toBe(senderReads(value, now));
      }),
      { seed: 14, numRuns: 5000 },
    );
  });

  it('read every date a fault rule sends as the wait it was written for', () => {
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 * 30 }), fc.integer({ min: 0, max: 4_102_444_800_000 }), (seconds, now) => {
        const header = resolveRetryAfter({ kind: 'relative', seconds }, now);
        expect(isImfFixdate(header)).toBe(true);
        const expected = Math.max(0, (Math.ceil((now + seconds * 1000) / 1000) * 1000 - now) / 1000);
        expect(senderReads(header, now)).toBe(expected);
        expect(retryAfterSeconds(header, now)).toBe(expected);
      }),
      { seed: 8, numRuns: 2000 },
    );
  });
});
