import { describe, expect, it } from 'vitest';
import { classifyOutcome, type AttemptObservation } from '../../../src/core/retry-policy/classify-outcome.js';
import { decideRetry } from '../../../src/core/retry-policy/decide-retry.js';
import { DEFAULT_RETRY_POLICY, type FailureClass, type RetryPolicy, type RetryableClass } from '../../../src/core/retry-policy/policy.js';

const NOW = Date.UTC(2026, 5, 1);
const r = (status: number, retryAfter?: string): AttemptObservation => ({ kind: 'response', status, retryAfter: retryAfter ?? null });

type Row = [string, AttemptObservation, FailureClass | null, 'succeed' | 'retry' | 'fail'];

// Every row of the spec 6.4 table, judged on attempt 1 under the default policy.
const TABLE: Row[] = [
  ['200', r(200), null, 'succeed'],
  ['201', r(201), null, 'succeed'],
  ['204', r(204), null, 'succeed'],
  ['299', r(299), null, 'succeed'],
  ['no response within the timeout', { kind: 'timeout' }, 'timeout', 'retry'],
  ['connection refused', { kind: 'network', cause: 'refused' }, 'network', 'retry'],
  ['connection reset', { kind: 'network', cause: 'reset' }, 'network', 'retry'],
  ['DNS failure', { kind: 'network', cause: 'dns' }, 'network', 'retry'],
  ['408', r(408), 'http_408', 'retry'],
  ['429', r(429), 'http_429', 'retry'],
  ['429 with Retry-After', r(429, '30'), 'http_429', 'retry'],
  ['500', r(500), 'http_5xx', 'retry'],
  ['502', r(502), 'http_5xx', 'retry'],
  ['503', r(503), 'http_5xx', 'retry'],
  ['503 with Retry-After', r(503, '30'), 'http_5xx', 'retry'],
  ['504', r(504), 'http_5xx', 'retry'],
  ['599', r(599), 'http_5xx', 'retry'],
  ['410', r(410), 'http_410', 'fail'],
  ['501', r(501), 'http_unsupported', 'fail'],
  ['505', r(505), 'http_unsupported', 'fail'],
  ['400', r(400), 'http_4xx', 'fail'],
  ['401', r(401), 'http_4xx', 'fail'],
  ['403', r(403), 'http_4xx', 'fail'],
  ['404', r(404), 'http_4xx', 'fail'],
  ['409', r(409), 'http_4xx', 'fail'],
  ['413', r(413), 'http_4xx', 'fail'],
  ['422', r(422), 'http_4xx', 'fail'],
  ['451', r(451), 'http_4xx', 'fail'],
  ['redirect without Location', { kind: 'redirect', cause: 'missing_location', status: 302 }, 'redirect', 'fail'],
  ['redirect with unusable Location', { kind: 'redirect', cause: 'unusable_location', status: 307 }, 'redirect', 'fail'],
  ['more than 3 hops', { kind: 'redirect', cause: 'too_many_hops', status: 308 }, 'redirect', 'fail'],
  ['a 3xx nobody could follow', r(304), 'redirect', 'fail'],
  ['private or reserved address', { kind: 'blocked' }, 'blocked', 'fail'],
  ['status outside 200-599', r(600), 'network', 'retry'],
  ['informational status as final answer', r(101), 'network', 'retry'],
];

describe('the spec 6.4 outcome table', () => {
  it.each(TABLE)('%s → class %s, %s', (_name, observation, failureClass, action) => {
    const outcome = classifyOutcome(observation);
    expect(outcome.failureClass).toBe(failureClass);
    expect(outcome.delivered).toBe(failureClass === null);
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 1, NOW, () => 0.5).action).toBe(action);
  });

  it('records the status for answers and none for transport failures', () => {
    expect(classifyOutcome(r(503)).responseStatus).toBe(503);
    expect(classifyOutcome({ kind: 'timeout' }).responseStatus).toBeNull();
    expect(classifyOutcome({ kind: 'redirect', cause: 'too_many_hops', status: 308 }).responseStatus).toBe(308);
  });

  it('keeps error messages coarse (spec 2.11)', () => {
    const messages = new Set(TABLE.map(([, o]) => classifyOutcome(o).errorMessage));
    expect(messages).toEqual(
      new Set([
        null,
        'timeout',
        'could not connect',
        'connection closed without a response',
        'responded with a status',
        'redirect without usable location',
        'more than 3 redirect hops',
        'endpoint resolves to a private or reserved address',
        'invalid response',
      ]),
    );
  });

  it('keeps Retry-After only for 429 and 503', () => {
    expect(classifyOutcome(r(429, '30')).retryAfter).toBe('30');
    expect(classifyOutcome(r(503, '30')).retryAfter).toBe('30');
    expect(classifyOutcome(r(500, '30')).retryAfter).toBeNull();
    expect(classifyOutcome(r(408, '30')).retryAfter).toBeNull();
  });

  it('ignores Retry-After on a 500: the backoff decides', () => {
    expect(decideRetry(DEFAULT_RETRY_POLICY, classifyOutcome(r(500, '600')), 1, NOW, () => 0)).toMatchObject({ why: 'backoff', waitSeconds: 48 });
  });
});

describe('retry decisions (spec 6.4 rules 2-4)', () => {
  const with4xx: RetryPolicy = { ...DEFAULT_RETRY_POLICY, retryOn: [...DEFAULT_RETRY_POLICY.retryOn, 'http_4xx'] };

  it('retries any other 4xx when http_4xx is in retryOn', () => {
    expect(decideRetry(with4xx, classifyOutcome(r(404)), 1, NOW, () => 0.5).action).toBe('retry');
    expect(decideRetry(DEFAULT_RETRY_POLICY, classifyOutcome(r(404)), 1, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'not_in_retry_on' });
  });

  it.each(['http_410', 'http_unsupported', 'redirect', 'blocked'] as const)('never retries %s, whatever retryOn lists', (klass) => {
    const forced = { ...DEFAULT_RETRY_POLICY, retryOn: [klass as unknown as RetryableClass] };
    const outcome = { delivered: false, failureClass: klass, responseStatus: null, errorMessage: 'x', retryAfter: null };
    expect(decideRetry(forced, outcome, 1, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'never_retried' });
  });

  it.each(['timeout', 'network', 'http_408', 'http_429', 'http_5xx'] as const)('does not retry %s when it is left out of retryOn', (klass) => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, retryOn: DEFAULT_RETRY_POLICY.retryOn.filter((c) => c !== klass) };
    const outcome = { delivered: false, failureClass: klass, responseStatus: null, errorMessage: 'x', retryAfter: null };
    expect(decideRetry(policy, outcome, 1, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'not_in_retry_on' });
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 1, NOW, () => 0.5).action).toBe('retry');
  });

  it('makes every delivery a single attempt when enabled is false', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, enabled: false };
    expect(decideRetry(policy, classifyOutcome(r(500)), 1, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'retries_disabled' });
  });

  it('stops at maxAttempts', () => {
    const outcome = classifyOutcome(r(500));
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 5, NOW, () => 0.5)).toMatchObject({ action: 'retry', retryNumber: 5 });
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 6, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'attempts_exhausted' });
    const one: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 };
    expect(decideRetry(one, outcome, 1, NOW, () => 0.5)).toEqual({ action: 'fail', why: 'attempts_exhausted' });
  });

  it('draws the backoff for retry n from the window of n', () => {
    const outcome = classifyOutcome({ kind: 'timeout' });
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 3, NOW, () => 0)).toMatchObject({ retryNumber: 3, waitSeconds: 768, bounds: { nominal: 960, min: 768, max: 1152 } });
    expect(decideRetry(DEFAULT_RETRY_POLICY, outcome, 3, NOW, () => 0.5)).toMatchObject({ waitSeconds: 960 });
  });
});
