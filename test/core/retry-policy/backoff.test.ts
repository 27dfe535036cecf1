import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, drawDelaySeconds, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import { retryWindow } from '../../../src/core/retry-policy/schedule.js';
import { mulberry32 } from '../../../src/core/seeded-random.js';

const policyArb = fc
  .record({
    initialDelaySeconds: fc.integer({ min: 10, max: 3600 }),
    maxDelaySeconds: fc.integer({ min: 60, max: 86400 }),
    maxAttempts: fc.integer({ min: 1, max: 10 }),
    backoff: fc.constantFrom<'exponential' | 'fixed'>('exponential', 'fixed'),
  })
  .filter((p) => p.initialDelaySeconds <= p.maxDelaySeconds)
  .map((p): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, ...p }));

describe('exponential backoff (spec 6.4 rule 4)', () => {
  it.each([
    [1, 60, 48, 72],
    [2, 240, 192, 288],
    [3, 960, 768, 1152],
    [4, 3840, 3072, 4608],
    [5, 15360, 12288, 18432],
  ])('default retry %i waits %i s ±20%% (%i to %i s)', (n, nominal, min, max) => {
    expect(retryWindow(DEFAULT_RETRY_POLICY, n)).toMatchObject({ nominal, min, max, capped: false });
  });

  it('draws every wait inside its ±20% window and never above maxDelaySeconds, for every retry and seed', () => {
    fc.assert(
      fc.property(policyArb, fc.integer(), (policy, seed) => {
        const random = mulberry32(seed);
        for (let n = 1; n < 10; n++) {
          const wait = drawDelaySeconds(policy, n, random);
          const nominal = policy.backoff === 'fixed' ? policy.initialDelaySeconds : policy.initialDelaySeconds * 4 ** (n - 1);
          const low = policy.backoff === 'fixed' ? nominal : nominal * 0.8;
          const high = policy.backoff === 'fixed' ? nominal : nominal * 1.2;
          expect(wait).toBeLessThanOrEqual(policy.maxDelaySeconds);
          expect(wait).toBeGreaterThanOrEqual(Math.min(low, policy.maxDelaySeconds));
          expect(wait).toBeLessThanOrEqual(high);
          const window = retryWindow(policy, n);
          expect(wait).toBeGreaterThanOrEqual(window.min);
          expect(wait).toBeLessThanOrEqual(window.max);
        }
      }),
      { seed: 20260601, numRuns: 500 },
    );
  });

  it('spreads the jitter over the whole window (not a constant)', () => {
    const random = mulberry32(1);
    const waits = Array.from({ length: 2000 }, () => drawDelaySeconds(DEFAULT_RETRY_POLICY, 1, random));
    expect(Math.min(...waits)).toBeLessThan(49);
    expect(Math.max(...waits)).toBeGreaterThan(71);
  });

  it('caps at maxDelaySeconds: a window above the cap collapses onto it', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 3600, maxDelaySeconds: 7200 };
    expect(retryWindow(policy, 1)).toMatchObject({ nominal: 3600, min: 2880, max: 4320, capped: false });
    expect(retryWindow(policy, 2)).toMatchObject({ uncappedNominal: 14400, nominal: 7200, min: 7200, max: 7200, capped: true });
    const random = mulberry32(9);
    for (let i = 0; i < 100; i++) expect(drawDelaySeconds(policy, 2, random)).toBe(7200);
  });

  it('caps part of a window that straddles the cap', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 60, maxDelaySeconds: 260 };
    expect(retryWindow(policy, 2)).toMatchObject({ nominal: 240, min: 192, max: 260, capped: true });
  });

  it('fixed backoff waits initialDelaySeconds every time, without jitter', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, backoff: 'fixed', initialDelaySeconds: 90 };
    const random = mulberry32(3);
    for (let n = 1; n <= 9; n++) {
      expect(drawDelaySeconds(policy, n, random)).toBe(90);
      expect(retryWindow(policy, n)).toMatchObject({ nominal: 90, min: 90, max: 90 });
    }
  });
});

describe('mulberry32', () => {
  it('repeats under one seed, differs across seeds, stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(xs);
    for (const x of xs) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });
});
