import { describe, expect, it } from 'vitest';
import { formatSeconds, roundSeconds } from '../../../src/core/signature/verify.js';

describe('roundSeconds', () => {
  it.each([
    [-3.424999952316284, -3.425],
    [12, 12],
    [0.0004, 0],
    [-0.0004, 0],
    [1763719200.1234567, 1763719200.123],
    [-301.9996, -302],
  ])('%d → %d', (seconds, rounded) => {
    expect(Object.is(roundSeconds(seconds), rounded)).toBe(true);
    expect(formatSeconds(seconds)).toBe(String(rounded));
  });
});
