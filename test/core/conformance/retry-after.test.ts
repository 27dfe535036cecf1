import { describe, expect, it } from 'vitest';
import { honoursRetryAfter, retryAfterSeconds } from '../../../src/core/conformance/retry-after.js';
import { T0 } from './builder.js';

describe('retryAfterSeconds', () => {
  it.each([
    ['120', 120],
    [' 7 ', 7],
    ['0', 0],
    ['99999999', 99_999_999],
    ['9'.repeat(40), Number.MAX_SAFE_INTEGER],
    [new Date(T0 + 600_000).toUTCString(), 600],
    [new Date(T0 - 30_000).toUTCString(), 0],
    ['Monday, 01-Jun-26 10:02:00 GMT', 120],
    ['Mon Jun  1 10:02:00 2026', 120],
    ['Xyz, 01 Jun 2026 10:02:00 GMT', null], // not a weekday
    ['Mon, 01 Jun 2026 10:02:00 UTC', null],
    ['2026-06-01T10:02:00Z', null],
    ['1.5', null],
    ['-3', null],
    ['soon', null],
    ['', null],
    [null, null],
  ] as const)('%j → %s', (value, expected) => {
    expect(retryAfterSeconds(value, T0)).toBe(expected);
  });

  it('reads an HTTP date relative to the answer time, at the date\'s whole-second resolution', () => {
    expect(retryAfterSeconds(new Date(T0 + 600_000).toUTCString(), T0 + 250)).toBe(599.75);
  });
});

describe('honoursRetryAfter', () => {
  it.each([[429, true], [503, true], [500, false], [502, false], [408, false], [null, false]] as const)('%s → %s', (status, expected) => {
    expect(honoursRetryAfter(status)).toBe(expected);
  });
});
