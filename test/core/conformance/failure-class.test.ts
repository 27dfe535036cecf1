import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAnswer, isRetried } from '../../../src/core/conformance/failure-class.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';

const answer = (status: number | null, reason: string | null = null, durationMs = 20) => ({ status, reason, receivedAt: 1000, finishedAt: 1000 + durationMs });

describe('classifyAnswer (spec 6.4 table, as the sender saw it)', () => {
  it.each([
    [200, null, 'success'],
    [204, null, 'success'],
    [299, null, 'success'],
    [408, null, 'http_408'],
    [429, null, 'http_429'],
    [500, null, 'http_5xx'],
    [502, null, 'http_5xx'],
    [503, 'STORE_UNAVAILABLE', 'http_5xx'],
    [599, null, 'http_5xx'],
    [501, null, 'http_unsupported'],
    [505, null, 'http_unsupported'],
    [410, null, 'http_410'],
    [400, 'SIGNATURE_MISMATCH', 'http_4xx'],
    [400, 'DELIVERY_ID_MISMATCH', 'http_4xx'],
    [404, null, 'http_4xx'],
    [413, null, 'http_4xx'],
    [301, 'fault:redirect no Location', 'redirect'],
    [307, 'fault:redirect hops=5', 'redirect'],
    [308, null, 'redirect'],
    [100, null, 'network'],
    [199, null, 'network'],
    [600, null, 'network'],
    [200.5, null, 'network'],
  ] as const)('%s (%s) → %s', (status, reason, expected) => {
    expect(classifyAnswer(answer(status, reason))).toBe(expected);
  });

  it.each([
    ['fault:hang attempt=2', 10_000, 'timeout'],
    ['fault:hang', 200, 'timeout'],
    ['fault:delay 15000ms, client gave up', 10_000, 'timeout'],
    ['fault:reset attempt=1', 5, 'network'],
    ['fault:close attempt=1', 5, 'network'],
    ['ECONNRESET', 5, 'network'],
    [null, 10_000, 'timeout'],
    [null, 9_000, 'timeout'],
    [null, 8_999, 'network'],
    ['', 3, 'network'],
  ] as const)('no response, reason %j after %i ms → %s', (reason, durationMs, expected) => {
    expect(classifyAnswer(answer(null, reason, durationMs))).toBe(expected);
  });

  it('uses the attempt timeout given for an unexplained close', () => {
    expect(classifyAnswer(answer(null, null, 4_500), 5)).toBe('timeout');
    expect(classifyAnswer(answer(null, null, 3_999), 5)).toBe('network');
  });

  it('gives a class for any input, never throws', () => {
    fc.assert(
      fc.property(fc.option(fc.oneof(fc.integer(), fc.double())), fc.option(fc.string()), fc.double(), fc.double(), (status, reason, a, b) => {
        const c = classifyAnswer({ status, reason, receivedAt: a, finishedAt: b });
        expect(typeof c).toBe('string');
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});

describe('isRetried', () => {
  const custom: RetryPolicy = { ...DEFAULT_RETRY_POLICY, retryOn: ['http_4xx', 'http_5xx'] };
  it.each([
    ['timeout', DEFAULT_RETRY_POLICY, true],
    ['network', DEFAULT_RETRY_POLICY, true],
    ['http_408', DEFAULT_RETRY_POLICY, true],
    ['http_429', DEFAULT_RETRY_POLICY, true],
    ['http_5xx', DEFAULT_RETRY_POLICY, true],
    ['http_4xx', DEFAULT_RETRY_POLICY, false],
    ['http_4xx', custom, true],
    ['timeout', custom, false],
    ['http_410', { ...custom, retryOn: ['http_4xx'] }, false],
    ['http_unsupported', custom, false],
    ['redirect', DEFAULT_RETRY_POLICY, false],
    ['blocked', DEFAULT_RETRY_POLICY, false],
    ['success', DEFAULT_RETRY_POLICY, false],
  ] as const)('%s with retryOn %j → %s', (cls, policy, expected) => {
    expect(isRetried(cls, policy)).toBe(expected);
  });
});

describe('an answer later than the attempt timeout', () => {
  it.each([
    [200, 10_001, 'timeout'],
    [200, 10_000, 'success'],
    [503, 15_000, 'timeout'],
    [null, 15_000, 'timeout'],
  ] as const)('%s after %i ms → %s (nobody was waiting for it)', (status, durationMs, expected) => {
    expect(classifyAnswer(answer(status, status === 200 ? null : 'fault:delay=15000', durationMs))).toBe(expected);
  });
});
