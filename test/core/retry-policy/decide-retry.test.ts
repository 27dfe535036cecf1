import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOutcome, type AttemptObservation, type AttemptOutcome } from '../../../src/core/retry-policy/classify-outcome.js';
import { NEVER_RETRIED, decideRetry } from '../../../src/core/retry-policy/decide-retry.js';
import { DEFAULT_RETRY_POLICY, RETRYABLE_CLASSES, type RetryPolicy, type RetryableClass } from '../../../src/core/retry-policy/policy.js';
import { retryWindow } from '../../../src/core/retry-policy/schedule.js';
import { mulberry32, type RandomSource } from '../../../src/core/seeded-random.js';

/** 2026-06-01T10:00:00.000Z */
const NOW = Date.UTC(2026, 5, 1, 10, 0, 0);

const policy = (p: Partial<RetryPolicy> = {}): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, ...p });
const status = (s: number, retryAfter?: string): AttemptOutcome => classifyOutcome({ kind: 'response', status: s, retryAfter: retryAfter ?? null });

/** A random source that counts its draws and always returns `value`. */
function counting(value = 0.5): RandomSource & { draws: number } {
  const source: RandomSource & { draws: number } = Object.assign(() => {
    source.draws += 1;
    return value;
  }, { draws: 0 });
  return source;
}

const DEFAULT_BOUNDS_1 = { nominal: 60, min: 48, max: 72 };

describe('decideRetry: succeed and fail (spec 6.4 rules 2-4)', () => {
  it.each([200, 201, 204, 299])('a %i succeeds, even on the last attempt and with retries off', (s) => {
    expect(decideRetry(policy(), status(s), 1, NOW, counting())).toEqual({ action: 'succeed' });
    expect(decideRetry(policy({ enabled: false }), status(s), 6, NOW, counting())).toEqual({ action: 'succeed' });
  });

  it.each<[string, AttemptObservation]>([
    ['a 410', { kind: 'response', status: 410 }],
    ['a 501', { kind: 'response', status: 501 }],
    ['a 505', { kind: 'response', status: 505 }],
    ['a redirect without location', { kind: 'redirect', cause: 'missing_location', status: 302 }],
    ['a plain 3xx answer', { kind: 'response', status: 301 }],
    ['a blocked endpoint', { kind: 'blocked' }],
  ])('%s is never retried, whatever retryOn says', (_, observation) => {
    const everything = policy({ retryOn: RETRYABLE_CLASSES });
    expect(decideRetry(everything, classifyOutcome(observation), 1, NOW, counting())).toEqual({ action: 'fail', why: 'never_retried' });
    // Checked before "retries disabled".
    expect(decideRetry(policy({ enabled: false }), classifyOutcome(observation), 1, NOW, counting())).toEqual({ action: 'fail', why: 'never_retried' });
  });

  it('fails an undelivered outcome without a class as never retried', () => {
    const outcome: AttemptOutcome = { delivered: false, failureClass: null, responseStatus: null, errorMessage: null, retryAfter: null };
    expect(decideRetry(policy(), outcome, 1, NOW, counting())).toEqual({ action: 'fail', why: 'never_retried' });
  });

  it('lists exactly the classes spec 6.4 rule 2 fails at once', () => {
    expect([...NEVER_RETRIED].sort()).toEqual(['blocked', 'http_410', 'http_unsupported', 'redirect']);
  });

  it.each<[string, AttemptOutcome, RetryPolicy, number, string]>([
    ['a 500 with retries off', status(500), policy({ enabled: false }), 1, 'retries_disabled'],
    ['a 429 with retries off', status(429, '30'), policy({ enabled: false }), 1, 'retries_disabled'],
    ['a 404 under the default retryOn', status(404), policy(), 1, 'not_in_retry_on'],
    ['a 400 under the default retryOn', status(400), policy(), 1, 'not_in_retry_on'],
    ['a timeout when retryOn is only http_5xx', classifyOutcome({ kind: 'timeout' }), policy({ retryOn: ['http_5xx'] }), 1, 'not_in_retry_on'],
    ['a 500 when retryOn is empty', status(500), policy({ retryOn: [] }), 1, 'not_in_retry_on'],
    ['a 500 on attempt 6 of 6', status(500), policy(), 6, 'attempts_exhausted'],
    ['a 500 on attempt 7 of 6', status(500), policy(), 7, 'attempts_exhausted'],
    ['a 503 on attempt 1 of 1', status(503, '30'), policy({ maxAttempts: 1 }), 1, 'attempts_exhausted'],
    ['a 404 not in retryOn on the last attempt', status(404), policy(), 6, 'not_in_retry_on'],
  ])('%s fails: %s', (_, outcome, p, attempt, why) => {
    const random = counting();
    expect(decideRetry(p, outcome, attempt, NOW, random)).toEqual({ action: 'fail', why });
    expect(random.draws).toBe(0);
  });
});

describe('decideRetry: backoff (spec 6.4 rule 4)', () => {
  it.each([
    [0, 48],
    [0.5, 60],
    [0.25, 54],
  ])('retry 1 with random %s waits %s s', (r, wait) => {
    const random = counting(r);
    expect(decideRetry(policy(), status(500), 1, NOW, random)).toEqual({ action: 'retry', retryNumber: 1, waitSeconds: wait, why: 'backoff', bounds: DEFAULT_BOUNDS_1 });
    expect(random.draws).toBe(1);
  });

  it.each([
    [2, { nominal: 240, min: 192, max: 288 }],
    [5, { nominal: 15360, min: 12288, max: 18432 }],
  ])('attempt %i is followed by retry %i with its own window', (attempt, bounds) => {
    const decision = decideRetry(policy(), classifyOutcome({ kind: 'network', cause: 'refused' }), attempt, NOW, counting(0));
    expect(decision).toEqual({ action: 'retry', retryNumber: attempt, waitSeconds: bounds.min, why: 'backoff', bounds });
  });

  it('retries a 4xx once the policy lists it', () => {
    expect(decideRetry(policy({ retryOn: ['http_4xx'] }), status(404), 1, NOW, counting())).toMatchObject({ action: 'retry', why: 'backoff' });
  });

  it('waits exactly the initial delay under fixed backoff, without drawing', () => {
    const random = counting(0.99);
    expect(decideRetry(policy({ backoff: 'fixed', initialDelaySeconds: 30 }), status(502), 3, NOW, random)).toEqual({
      action: 'retry',
      retryNumber: 3,
      waitSeconds: 30,
      why: 'backoff',
      bounds: { nominal: 30, min: 30, max: 30 },
    });
    expect(random.draws).toBe(0);
  });

  it('ignores a Retry-After on a status that does not carry one (500)', () => {
    expect(decideRetry(policy(), status(500, '30'), 1, NOW, counting(0.5))).toMatchObject({ why: 'backoff', waitSeconds: 60 });
  });
});

describe('decideRetry: Retry-After (spec 6.4 rule 1)', () => {
  it.each([
    [429, '30', 30, 30],
    [503, '30', 30, 30],
    [429, '0', 0, 10],
    [429, '5', 5, 10],
    [503, '10', 10, 10],
    [429, '21600', 21600, 21600],
    [503, '99999', 99999, 21600],
    [429, ' 45 ', 45, 45],
  ])('a %i with Retry-After %j asks %i s and waits %i s', (s, value, requested, wait) => {
    const random = counting();
    expect(decideRetry(policy(), status(s, value), 1, NOW, random)).toEqual({
      action: 'retry',
      retryNumber: 1,
      waitSeconds: wait,
      why: 'retry_after',
      bounds: DEFAULT_BOUNDS_1,
      retryAfterRequestedSeconds: requested,
    });
    expect(random.draws).toBe(0);
  });

  it('reads an HTTP date against now', () => {
    const in2min = new Date(NOW + 120_000).toUTCString();
    expect(decideRetry(policy(), status(503, in2min), 1, NOW, counting())).toMatchObject({ why: 'retry_after', waitSeconds: 120, retryAfterRequestedSeconds: 120 });
    const past = new Date(NOW - 120_000).toUTCString();
    expect(decideRetry(policy(), status(429, past), 1, NOW, counting())).toMatchObject({ why: 'retry_after', waitSeconds: 10, retryAfterRequestedSeconds: 0 });
  });

  it.each(['soon', '1.5', '-10', '', '30s'])('falls back to the backoff on an unreadable Retry-After %j', (value) => {
    const random = counting(0.5);
    const decision = decideRetry(policy(), status(429, value), 1, NOW, random);
    expect(decision).toEqual({ action: 'retry', retryNumber: 1, waitSeconds: 60, why: 'backoff', bounds: DEFAULT_BOUNDS_1 });
    expect(random.draws).toBe(1);
  });

  it('still stops at maxAttempts when a Retry-After is sent', () => {
    expect(decideRetry(policy({ maxAttempts: 3 }), status(429, '30'), 3, NOW, counting())).toEqual({ action: 'fail', why: 'attempts_exhausted' });
  });

  it('caps a Retry-After at a small maxDelaySeconds, even under the 10 s floor', () => {
    expect(decideRetry(policy({ maxDelaySeconds: 5, initialDelaySeconds: 1 }), status(429, '30'), 1, NOW, counting())).toMatchObject({ waitSeconds: 5 });
  });
});

describe('decideRetry: laws', () => {
  const policyArb = fc
    .record({
      maxAttempts: fc.integer({ min: 1, max: 10 }),
      backoff: fc.constantFrom<'exponential' | 'fixed'>('exponential', 'fixed'),
      initialDelaySeconds: fc.integer({ min: 1, max: 3600 }),
      maxDelaySeconds: fc.integer({ min: 1, max: 86400 }),
      retryOn: fc.subarray([...RETRYABLE_CLASSES], { minLength: 1 }),
    })
    .map((p) => policy(p));
  const observationFor: Record<RetryableClass, AttemptObservation> = {
    timeout: { kind: 'timeout' },
    network: { kind: 'network', cause: 'reset' },
    http_408: { kind: 'response', status: 408 },
    http_429: { kind: 'response', status: 429 },
    http_5xx: { kind: 'response', status: 500 },
    http_4xx: { kind: 'response', status: 422 },
  };

  it('retries a listed class before maxAttempts, inside the window of that retry; stops at maxAttempts', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: 1, max: 12 }), fc.integer(), (p, attempt, seed) => {
        const failureClass = p.retryOn[(seed >>> 0) % p.retryOn.length]!;
        const outcome = classifyOutcome(observationFor[failureClass]);
        const decision = decideRetry(p, outcome, attempt, NOW, mulberry32(seed));
        if (attempt >= p.maxAttempts) {
          expect(decision).toEqual({ action: 'fail', why: 'attempts_exhausted' });
          return;
        }
        expect(decision.action).toBe('retry');
        if (decision.action !== 'retry') return;
        const window = retryWindow(p, attempt);
        expect(decision.retryNumber).toBe(attempt);
        expect(decision.bounds).toEqual({ nominal: window.nominal, min: window.min, max: window.max });
        expect(decision.waitSeconds).toBeGreaterThanOrEqual(window.min);
        expect(decision.waitSeconds).toBeLessThanOrEqual(window.max + 1e-9);
        expect(decision.waitSeconds).toBeLessThanOrEqual(p.maxDelaySeconds);
      }),
      { seed: 91, numRuns: 500 },
    );
  });

  it('waits a honoured Retry-After clamped to [10 s, maxDelaySeconds]', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(429, 503), (p, requested, s) => {
        const listed = policy({ ...p, retryOn: ['http_429', 'http_5xx'], maxAttempts: Math.max(2, p.maxAttempts) });
        const decision = decideRetry(listed, status(s, String(requested)), 1, NOW, counting());
        expect(decision).toMatchObject({ action: 'retry', why: 'retry_after', retryAfterRequestedSeconds: requested, waitSeconds: Math.min(Math.max(requested, 10), listed.maxDelaySeconds) });
      }),
      { seed: 92, numRuns: 300 },
    );
  });

  it('is the same decision for the same seed', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 5 }), (seed, attempt) => {
        const a = decideRetry(policy(), status(500), attempt, NOW, mulberry32(seed));
        const b = decideRetry(policy(), status(500), attempt, NOW, mulberry32(seed));
        expect(a).toEqual(b);
      }),
      { seed: 93, numRuns: 100 },
    );
  });
});
