import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RANGE_FORMS, checkRange, formatRange, inRange, parseRangeText } from '../../../src/core/faults/attempt-range.js';
import { MAX_RANGE_VALUE, type AttemptRange } from '../../../src/core/faults/rule.js';

const WHOLE = `must use whole numbers from 1 to ${MAX_RANGE_VALUE}`;

describe('parseRangeText', () => {
  it.each<[string, AttemptRange]>([
    ['3', { from: 3, to: 3 }],
    ['1', { from: 1, to: 1 }],
    ['2-4', { from: 2, to: 4 }],
    ['2-2', { from: 2, to: 2 }],
    ['3-', { from: 3, to: null }],
    ['1-', { from: 1, to: null }],
    ['007', { from: 7, to: 7 }],
    ['01-010', { from: 1, to: 10 }],
    [String(MAX_RANGE_VALUE), { from: MAX_RANGE_VALUE, to: MAX_RANGE_VALUE }],
    [`1-${MAX_RANGE_VALUE}`, { from: 1, to: MAX_RANGE_VALUE }],
  ])('reads %j', (text, range) => {
    expect(parseRangeText(text)).toEqual({ ok: true, value: range });
  });

  it.each([
    ['0', WHOLE],
    ['0-3', WHOLE],
    ['0-', WHOLE],
    ['3-0', WHOLE],
    [String(MAX_RANGE_VALUE + 1), WHOLE],
    [`1-${MAX_RANGE_VALUE + 1}`, WHOLE],
    ['9999999', WHOLE],
    ['4-2', 'must not end (2) before it starts (4)'],
    ['10-9', 'must not end (9) before it starts (10)'],
    ['', RANGE_FORMS],
    ['-', RANGE_FORMS],
    ['-3', RANGE_FORMS],
    ['3--', RANGE_FORMS],
    ['3-4-5', RANGE_FORMS],
    [' 3', RANGE_FORMS],
    ['3 ', RANGE_FORMS],
    ['2 - 4', RANGE_FORMS],
    ['1.5', RANGE_FORMS],
    ['1e3', RANGE_FORMS],
    ['+3', RANGE_FORMS],
    ['a', RANGE_FORMS],
    ['12345678', RANGE_FORMS],
    ['1-12345678', RANGE_FORMS],
    ['３', RANGE_FORMS],
    ['2..4', RANGE_FORMS],
  ])('refuses %j: %s', (text, problem) => {
    expect(parseRangeText(text)).toEqual({ ok: false, problem });
  });

  it('names every accepted form in its refusal', () => {
    expect(RANGE_FORMS).toBe('must be N, N-M or N- with 1 <= N <= M (e.g. 1, 2-4, 3-)');
  });
});

describe('checkRange', () => {
  it.each<[AttemptRange, string]>([
    [{ from: 0, to: null }, WHOLE],
    [{ from: 1.5, to: null }, WHOLE],
    [{ from: Number.NaN, to: 3 }, WHOLE],
    [{ from: 1, to: Number.POSITIVE_INFINITY }, WHOLE],
    [{ from: 1, to: 0 }, WHOLE],
    [{ from: -2, to: -1 }, WHOLE],
    [{ from: '2' as unknown as number, to: null }, WHOLE],
    [{ from: MAX_RANGE_VALUE + 1, to: null }, WHOLE],
    [{ from: 5, to: 4 }, 'must not end (4) before it starts (5)'],
  ])('refuses %j: %s', (range, problem) => {
    expect(checkRange(range)).toEqual({ ok: false, problem });
  });

  it.each<AttemptRange>([
    { from: 1, to: null },
    { from: 1, to: 1 },
    { from: 2, to: MAX_RANGE_VALUE },
    { from: MAX_RANGE_VALUE, to: null },
  ])('accepts %j as it is', (range) => {
    expect(checkRange(range)).toEqual({ ok: true, value: range });
  });
});

describe('formatRange', () => {
  it.each<[AttemptRange, string]>([
    [{ from: 3, to: 3 }, '3'],
    [{ from: 2, to: 4 }, '2-4'],
    [{ from: 3, to: null }, '3-'],
    [{ from: 1, to: MAX_RANGE_VALUE }, `1-${MAX_RANGE_VALUE}`],
  ])('%j → %j', (range, text) => {
    expect(formatRange(range)).toBe(text);
  });
});

const count = fc.integer({ min: 1, max: MAX_RANGE_VALUE });
const rangeArb: fc.Arbitrary<AttemptRange> = fc.oneof(
  count.map((from) => ({ from, to: null })),
  fc.tuple(count, count).map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) })),
);

describe('format → parse', () => {
  it('reads back every valid range', () => {
    fc.assert(
      fc.property(rangeArb, (range) => {
        expect(parseRangeText(formatRange(range))).toEqual({ ok: true, value: range });
      }),
      { seed: 61, numRuns: 500 },
    );
  });

  it('writes every text it reads back in the same or a shorter form', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9][0-9]{0,5}(-([1-9][0-9]{0,5})?)?$/), (text) => {
        const parsed = parseRangeText(text);
        if (parsed.ok) {
          const back = formatRange(parsed.value);
          // `N-N` is written `N`.
          expect(parseRangeText(back)).toEqual(parsed);
          expect(back.length).toBeLessThanOrEqual(text.length);
        }
      }),
      { seed: 62, numRuns: 500 },
    );
  });
});

describe('inRange', () => {
  it.each<[AttemptRange, number, boolean]>([
    [{ from: 3, to: 3 }, 3, true],
    [{ from: 3, to: 3 }, 2, false],
    [{ from: 3, to: 3 }, 4, false],
    [{ from: 2, to: 4 }, 2, true],
    [{ from: 2, to: 4 }, 4, true],
    [{ from: 2, to: 4 }, 5, false],
    [{ from: 3, to: null }, 3, true],
    [{ from: 3, to: null }, 1e12, true],
    [{ from: 3, to: null }, Number.POSITIVE_INFINITY, true],
    [{ from: 3, to: null }, 2, false],
    [{ from: 1, to: null }, Number.NaN, false],
    [{ from: 1, to: 5 }, Number.NaN, false],
    [{ from: 1, to: 5 }, '3' as unknown as number, false],
    [{ from: 1, to: 5 }, null as unknown as number, false],
  ])('%j holds %s: %s', (range, n, expected) => {
    expect(inRange(range, n)).toBe(expected);
  });

  it('holds exactly the integers from `from` to `to`', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: -10, max: MAX_RANGE_VALUE + 10 }), (range, n) => {
        expect(inRange(range, n)).toBe(n >= range.from && (range.to === null || n <= range.to));
      }),
      { seed: 63, numRuns: 500 },
    );
  });
});
