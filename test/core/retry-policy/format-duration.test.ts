import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatMs } from '../../../src/core/retry-policy/format-duration.js';

/** Reads a formatted duration back to seconds: "1 h 25 min" → 5100. */
function readBack(text: string): number {
  const unit: Record<string, number> = { d: 86400, h: 3600, min: 60, s: 1 };
  const parts = text.split(' ');
  let total = 0;
  for (let i = 0; i < parts.length; i += 2) total += Number(parts[i]) * unit[parts[i + 1]!]!;
  return total;
}

const GRAMMAR = /^(\d+(\.\d)? s|\d+ min( \d+ s)?|\d+ h( \d+ min)?|\d+ d( \d+ h)?)$/;

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [-5, '0 s'],
    [Number.NaN, '0 s'],
    [Number.POSITIVE_INFINITY, '0 s'],
    [Number.NEGATIVE_INFINITY, '0 s'],
    [0.04, '0 s'],
    [0.06, '0.1 s'],
    [1, '1 s'],
    [47.75, '47.8 s'],
    [48, '48 s'],
    [59.94, '59.9 s'],
    [59.96, '1 min'],
    [60, '1 min'],
    [72, '1 min 12 s'],
    [119.4, '1 min 59 s'],
    [119.6, '2 min'],
    [300, '5 min'],
    [3599.4, '59 min 59 s'],
    [3599.6, '1 h'],
    [3600, '1 h'],
    [3629, '1 h'],
    [3631, '1 h 1 min'],
    [5100, '1 h 25 min'],
    // The default policy's cumulative nominal waits (spec 6.4 rule 4): 1 min, 5 min, 21 min, 1 h 25 min, 5 h 41 min.
    [60 + 240 + 960, '21 min'],
    [60 + 240 + 960 + 3840 + 15360, '5 h 41 min'],
    [21600, '6 h'],
    [86369, '23 h 59 min'],
    [86371, '1 d'],
    [86400, '1 d'],
    [90000, '1 d 1 h'],
    [183600, '2 d 3 h'],
    [86400 * 2 + 1799, '2 d'],
    [86400 * 2 + 1801, '2 d 1 h'],
    [86400 * 7 - 1, '7 d'],
    [1e9, '11574 d 2 h'],
  ])('%s s → %j', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  const secondsArb = fc.oneof(
    fc.double({ min: 0, max: 60, noNaN: true }),
    fc.double({ min: 0, max: 4000, noNaN: true }),
    fc.double({ min: 0, max: 100_000, noNaN: true }),
    fc.double({ min: 0, max: 1e8, noNaN: true }),
  );

  it('writes one of its short forms, within the precision of that form', () => {
    fc.assert(
      fc.property(secondsArb, (seconds) => {
        const text = formatDuration(seconds);
        expect(text).toMatch(GRAMMAR);
        // Half the smallest unit shown: 0.05 s under a minute, 0.5 s under an hour, 30 s under a day, 30 min beyond.
        const error = seconds < 60 ? 0.05 : seconds < 3600 ? 0.5 : seconds < 86400 ? 30 : 1800;
        expect(Math.abs(readBack(text) - seconds)).toBeLessThanOrEqual(error + 1e-9);
      }),
      { seed: 101, numRuns: 1000 },
    );
  });

  it('never shows a unit at its overflow value (60 s, 60 min, 24 h)', () => {
    fc.assert(
      fc.property(secondsArb, (seconds) => {
        const text = formatDuration(seconds);
        expect(text).not.toMatch(/(^|\D)60(\.0)? s|(^|\D)60 min|(^|\D)24 h/);
      }),
      { seed: 102, numRuns: 1000 },
    );
  });

  it('is monotonic: a longer wait never reads shorter', () => {
    fc.assert(
      fc.property(secondsArb, secondsArb, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(readBack(formatDuration(lo))).toBeLessThanOrEqual(readBack(formatDuration(hi)));
      }),
      { seed: 103, numRuns: 1000 },
    );
  });
});

describe('formatMs', () => {
  it.each([
    [0, '0 ms'],
    [-1, '0 ms'],
    [Number.NaN, '0 ms'],
    [Number.POSITIVE_INFINITY, '0 ms'],
    [0.4, '0 ms'],
    [1, '1 ms'],
    [62, '62 ms'],
    [62.4, '62 ms'],
    [999, '999 ms'],
    [999.4, '999 ms'],
    [1000, '1 s'],
    [1500, '1.5 s'],
    [60_000, '1 min'],
    [72_000, '1 min 12 s'],
    [3_600_000, '1 h'],
  ])('%s ms → %j', (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });

  // Once a bug: just under a second rounded up to "1000 ms", where formatDuration rolls 59.96 s over to "1 min"
  // and 3599.6 s to "1 h". Now "1 s", like formatMs(1000).
  it('rolls a wait that rounds to 1000 ms over to "1 s"', () => {
    expect(formatMs(999.6)).toBe('1 s');
  });
});
