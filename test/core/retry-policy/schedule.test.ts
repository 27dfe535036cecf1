import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/core/retry-policy/format-duration.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import { retrySchedule } from '../../../src/core/retry-policy/schedule.js';

describe('retrySchedule', () => {
  it('gives the spec defaults: about 1 min, 5 min, 21 min, 1 h 25 min, 5 h 40 min (6.4 rule 4)', () => {
    const { retries } = retrySchedule(DEFAULT_RETRY_POLICY);
    expect(retries.map((r) => r.nominal)).toEqual([60, 240, 960, 3840, 15360]);
    expect(retries.map((r) => r.cumulativeNominal)).toEqual([60, 300, 1260, 5100, 20460]);
    // 20460 s is 5 h 41 min: the spec rounds it to "about 5 h 40 min".
    expect(retries.map((r) => formatDuration(r.cumulativeNominal))).toEqual(['1 min', '5 min', '21 min', '1 h 25 min', '5 h 41 min']);
    expect(Math.abs(retries[4]!.cumulativeNominal - (5 * 3600 + 40 * 60))).toBeLessThanOrEqual(60);
    expect(retries.map((r) => r.beforeAttempt)).toEqual([2, 3, 4, 5, 6]);
  });

  it('carries the ±20% bounds and their sums', () => {
    const { retries } = retrySchedule(DEFAULT_RETRY_POLICY);
    expect(retries[0]).toMatchObject({ min: 48, max: 72, cumulativeMin: 48, cumulativeMax: 72, capSeconds: 21600, capped: false });
    expect(retries[4]).toMatchObject({ min: 12288, max: 18432, cumulativeMin: 16368, cumulativeMax: 24552 });
  });

  it('marks and applies the cap', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 5, initialDelaySeconds: 600, maxDelaySeconds: 2500 };
    const { retries } = retrySchedule(policy);
    expect(retries.map((r) => [r.nominal, r.capped])).toEqual([
      [600, false],
      [2400, true], // its upper bound, 2880, would pass the cap
      [2500, true],
      [2500, true],
    ]);
    expect(retries[1]).toMatchObject({ min: 1920, max: 2500 });
    expect(retries[3]).toMatchObject({ uncappedNominal: 38400, min: 2500, max: 2500 });
  });

  it('has no retries when retries are disabled or maxAttempts is 1', () => {
    expect(retrySchedule({ ...DEFAULT_RETRY_POLICY, enabled: false }).retries).toEqual([]);
    expect(retrySchedule({ ...DEFAULT_RETRY_POLICY, maxAttempts: 1 }).retries).toEqual([]);
  });

  it('gives fixed backoff the same wait every time', () => {
    const { retries } = retrySchedule({ ...DEFAULT_RETRY_POLICY, backoff: 'fixed', initialDelaySeconds: 30, maxAttempts: 4 });
    expect(retries.map((r) => [r.nominal, r.min, r.max, r.cumulativeNominal])).toEqual([
      [30, 30, 30, 30],
      [30, 30, 30, 60],
      [30, 30, 30, 90],
    ]);
  });

  it('states the Retry-After range', () => {
    expect(retrySchedule(DEFAULT_RETRY_POLICY).retryAfterRange).toEqual({ minSeconds: 10, maxSeconds: 21600 });
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [-3, '0 s'],
    [Number.NaN, '0 s'],
    [8.8, '8.8 s'],
    [48, '48 s'],
    [59.99, '1 min'],
    [60, '1 min'],
    [72, '1 min 12 s'],
    [3599.6, '1 h'],
    [3600, '1 h'],
    [5100, '1 h 25 min'],
    [20460, '5 h 41 min'],
    [21600, '6 h'],
    [86400, '1 d'],
    [90000, '1 d 1 h'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
