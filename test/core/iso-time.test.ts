import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time.js';

describe('isoTime', () => {
  it('equals Date#toISOString for any time, fractional milliseconds included', () => {
    fc.assert(
      fc.property(fc.double({ min: -62_000_000_000_000, max: 253_402_300_799_999, noNaN: true }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { seed: 3, numRuns: 2000 },
    );
  });

  it('stays right across days, in both directions', () => {
    for (const ms of [0, 86_399_999, 86_400_000, 1, -1, Date.UTC(2026, 5, 1, 23, 59, 59, 999), Date.UTC(2026, 5, 2), Date.UTC(2026, 5, 1)]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('does not throw on non-finite input', () => {
    expect(isoTime(Number.NaN)).toBe('1970-01-01T00:00:00.000Z');
  });
});
