import { describe, expect, it } from 'vitest';
import { jitteredBackoffMs } from '../../src/core/backoff.js';

describe('jitteredBackoffMs', () => {
  it('doubles from the initial wait, caps it, and jitters ±20%', () => {
    const b = { initialMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => jitteredBackoffMs(b, n, () => 0.5))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(jitteredBackoffMs(b, 1, () => 0)).toBe(800);
    expect(jitteredBackoffMs(b, 1, () => 0.999999)).toBe(1200);
    expect(jitteredBackoffMs(b, 0, () => 0.5)).toBe(1000);
  });
});
