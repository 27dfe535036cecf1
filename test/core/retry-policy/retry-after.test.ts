import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../../src/core/retry-policy/classify-outcome.js';
import { decideRetry } from '../../../src/core/retry-policy/decide-retry.js';
import { DEFAULT_RETRY_POLICY, clampRetryAfterSeconds, type RetryPolicy } from '../../../src/core/retry-policy/policy.js';
import { parseRetryAfter } from '../../../src/core/retry-policy/retry-after.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0); // Mon, 01 Jun 2026 12:00:00 GMT

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it.each([
    ['120', 120, 'seconds'],
    ['0', 0, 'seconds'],
    [' 30 ', 30, 'seconds'],
    ['99999999999999999999999', Number.MAX_SAFE_INTEGER, 'seconds'],
    ['Mon, 01 Jun 2026 12:02:00 GMT', 120, 'http_date'],
    ['Monday, 01-Jun-26 12:00:45 GMT', 45, 'http_date'],
    ['Mon Jun  1 12:10:00 2026', 600, 'http_date'],
    ['Sun, 31 May 2026 12:00:00 GMT', 0, 'http_date'], // past date: wait nothing (then floored at 10 s)
    ['Thu, 01 Jan 1970 00:00:00 GMT', 0, 'http_date'],
  ] as const)('%j asks for %d s (%s)', (value, seconds, form) => {
    expect(parseRetryAfter(value, NOW)).toEqual({ ok: true, seconds, form });
  });

  it.each([
    ['soon'],
    ['1.5'],
    ['-5'],
    ['12abc'],
    ['0x10'],
    ['1e3'],
    ['Mon, 31 Feb 2026 12:00:00 GMT'],
    ['Mon, 01 Jun 2026 25:00:00 GMT'],
    ['Xyz, 01 Jun 2026 12:00:00 GMT'],
    ['2026-06-01T12:02:00Z'],
    ['Mon, 01 Jun 2026 12:02:00 UTC'],
    ['\u0000\uffff'],
  ])('refuses garbage %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toEqual({ ok: false, reason: 'unparseable' });
  });

  it.each([[undefined], [null], [''], ['   ']])('reports %j as absent', (value) => {
    expect(parseRetryAfter(value, NOW)).toEqual({ ok: false, reason: 'absent' });
  });

  it('takes the first of repeated values', () => {
    expect(parseRetryAfter(['15', '900'], NOW)).toEqual({ ok: true, seconds: 15, form: 'seconds' });
  });
});

describe('Retry-After honoured between 10 s and maxDelaySeconds (spec 6.4 rule 1)', () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxDelaySeconds: 3600 };
  const failing = (status: number, retryAfter: string | null): AttemptOutcome => ({
    delivered: false,
    failureClass: status === 429 ? 'http_429' : 'http_5xx',
    responseStatus: status,
    errorMessage: 'responded with a status',
    retryAfter,
  });
  const noRandom = (): number => {
    throw new Error('jitter must not be drawn when Retry-After decides');
  };

  it.each([
    ['120', 120],
    ['5', 10], // below the floor
    ['0', 10],
    ['Sun, 31 May 2026 12:00:00 GMT', 10], // past date
    ['7200', 3600], // above max: capped
    ['Mon, 01 Jun 2026 14:00:00 GMT', 3600],
    ['Mon, 01 Jun 2026 12:01:30 GMT', 90],
  ])('429 with Retry-After %j waits %d s', (value, wait) => {
    const decision = decideRetry(policy, failing(429, value), 1, NOW, noRandom);
    expect(decision).toMatchObject({ action: 'retry', why: 'retry_after', waitSeconds: wait });
  });

  it('honours a 503 Retry-After the same way', () => {
    expect(decideRetry(policy, failing(503, '45'), 2, NOW, noRandom)).toMatchObject({ action: 'retry', why: 'retry_after', waitSeconds: 45 });
  });

  it('falls back to the backoff when Retry-After is garbage', () => {
    const decision = decideRetry(policy, failing(429, 'soon'), 1, NOW, () => 0.5);
    expect(decision).toMatchObject({ action: 'retry', why: 'backoff', waitSeconds: 60 });
  });

  it('clampRetryAfterSeconds keeps values inside [10, max]', () => {
    expect(clampRetryAfterSeconds(policy, 3)).toBe(10);
    expect(clampRetryAfterSeconds(policy, 600)).toBe(600);
    expect(clampRetryAfterSeconds(policy, 1e12)).toBe(3600);
  });
});
