import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime, policySeconds, roundMs, seconds } from '../../../src/core/conformance/numbers.js';

describe('seconds', () => {
  it.each<[number | null, string]>([
    [47750, '47.750 s'],
    [0, '0.000 s'],
    [1, '0.001 s'],
    [999, '0.999 s'],
    [60_000, '60.000 s'],
    [-1500, '-1.500 s'],
    [21_600_000, '21600.000 s'],
    [null, '?'],
    [Number.NaN, '?'],
    [Number.POSITIVE_INFINITY, '?'],
    [Number.NEGATIVE_INFINITY, '?'],
  ])('%s ms → %j', (ms, text) => {
    expect(seconds(ms)).toBe(text);
  });

  it('always shows three decimals for a finite number', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => {
        const text = seconds(ms);
        expect(text).toMatch(/^-?\d+\.\d{3} s$/);
        expect(Number(text.slice(0, -2))).toBeCloseTo(ms / 1000, 3);
      }),
      { seed: 41, numRuns: 300 },
    );
  });
});

describe('policySeconds', () => {
  it.each([
    [60, '60 s'],
    [0.6, '0.6 s'],
    [0, '0 s'],
    [21600, '21600 s'],
    [0.1 + 0.2, '0.3 s'],
    [48 * 0.01, '0.48 s'],
    [1 / 3, '0.333333 s'],
    [0.0000004, '0 s'],
    [0.0000015, '0.000002 s'],
    [-2.5, '-2.5 s'],
  ])('%s → %j', (s, text) => {
    expect(policySeconds(s)).toBe(text);
  });
});

describe('roundMs', () => {
  it.each([
    [48 * 0.01 * 1000, 480],
    [72 * 0.01 * 1000, 720],
    [1.0004, 1],
    [1.0006, 1.001],
    [-250, -250],
    [0, 0],
  ])('%s → %s', (ms, rounded) => {
    expect(roundMs(ms)).toBe(rounded);
  });

  it('moves a value by at most half a microsecond and is idempotent', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (ms) => {
        const r = roundMs(ms);
        expect(Math.abs(r - ms)).toBeLessThanOrEqual(0.0005 + 1e-6);
        expect(roundMs(r)).toBe(r);
      }),
      { seed: 42, numRuns: 500 },
    );
  });

  it('is monotonic', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.double({ min: -1e9, max: 1e9, noNaN: true }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(roundMs(lo)).toBeLessThanOrEqual(roundMs(hi));
      }),
      { seed: 43, numRuns: 500 },
    );
  });
});

describe('isoTime', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000Z'],
    [Date.UTC(2026, 5, 1, 10, 0, 0, 123), '2026-06-01T10:00:00.123Z'],
    [-1, '1969-12-31T23:59:59.999Z'],
    [8.64e15, '+275760-09-13T00:00:00.000Z'],
    [-8.64e15, '-271821-04-20T00:00:00.000Z'],
    [8.64e15 + 1, '8640000000000001'],
    [-8.64e15 - 1, '-8640000000000001'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('%s → %s', (ms, text) => {
    expect(isoTime(ms)).toBe(text);
  });

  it('round-trips every representable date through Date.parse', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(Date.parse(isoTime(ms))).toBe(ms);
      }),
      { seed: 44, numRuns: 300 },
    );
  });
});
