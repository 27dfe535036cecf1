import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY, RETRYABLE_CLASSES } from '../../../src/core/retry-policy/policy.js';
import {
  validateFailureHandling,
  validateRetryPolicy,
  validationErrorEnvelope,
} from '../../../src/core/retry-policy/validate-policy.js';

const fields = (input: unknown): string[] => {
  const result = validateRetryPolicy(input);
  return result.ok ? [] : result.problems.map((p) => p.field);
};

describe('validateRetryPolicy (spec 2.11, section 8 bounds)', () => {
  it('accepts the spec defaults (6.4 rule 3) and an empty object', () => {
    expect(validateRetryPolicy(DEFAULT_RETRY_POLICY)).toEqual({ ok: true, value: DEFAULT_RETRY_POLICY });
    expect(validateRetryPolicy({})).toEqual({ ok: true, value: DEFAULT_RETRY_POLICY });
  });

  it('keeps the defaults for fields not given', () => {
    expect(validateRetryPolicy({ maxAttempts: 3 })).toEqual({ ok: true, value: { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 } });
  });

  it.each([
    ['maxAttempts', 0, false],
    ['maxAttempts', 1, true],
    ['maxAttempts', 10, true],
    ['maxAttempts', 11, false],
    ['maxAttempts', 2.5, false],
    ['maxAttempts', '3', false],
    ['initialDelaySeconds', 9, false],
    ['initialDelaySeconds', 10, true],
    ['initialDelaySeconds', 3600, true],
    ['initialDelaySeconds', 3601, false],
    ['maxDelaySeconds', 59, false],
    ['maxDelaySeconds', 60, true],
    ['maxDelaySeconds', 86400, true],
    ['maxDelaySeconds', 86401, false],
    ['maxDelaySeconds', null, false],
    ['backoff', 'fixed', true],
    ['backoff', 'linear', false],
    ['enabled', false, true],
    ['enabled', 'yes', false],
  ])('%s = %j → accepted: %s', (field, value, ok) => {
    // Keep initial <= max so only the field under test can fail.
    const base = field === 'maxDelaySeconds' ? { initialDelaySeconds: 10 } : {};
    const result = validateRetryPolicy({ ...base, [field]: value });
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.problems).toEqual([expect.objectContaining({ field: `retryPolicy.${field}` })]);
  });

  it('refuses initialDelaySeconds above maxDelaySeconds, naming initialDelaySeconds (6.4 rule 4)', () => {
    const result = validateRetryPolicy({ initialDelaySeconds: 600, maxDelaySeconds: 300 });
    expect(result).toEqual({ ok: false, problems: [{ field: 'retryPolicy.initialDelaySeconds', message: 'must not exceed maxDelaySeconds (600 > 300)' }] });
    expect(validateRetryPolicy({ initialDelaySeconds: 300, maxDelaySeconds: 300 }).ok).toBe(true);
  });

  it('accepts any subset of the six retryable classes', () => {
    fc.assert(
      fc.property(fc.subarray([...RETRYABLE_CLASSES]), (retryOn) => {
        expect(validateRetryPolicy({ retryOn })).toEqual({ ok: true, value: { ...DEFAULT_RETRY_POLICY, retryOn } });
      }),
      { seed: 7 },
    );
  });

  it.each([
    [['http_410'], 'retryPolicy.retryOn[0]'],
    [['timeout', 'redirect'], 'retryPolicy.retryOn[1]'],
    [['timeout', 'blocked'], 'retryPolicy.retryOn[1]'],
    [['http_unsupported'], 'retryPolicy.retryOn[0]'],
    [['webhook_inactive'], 'retryPolicy.retryOn[0]'],
    [['timeout', 'timeout'], 'retryPolicy.retryOn[1]'],
    [[42], 'retryPolicy.retryOn[0]'],
    ['timeout', 'retryPolicy.retryOn'],
    [['timeout', 'network', 'http_408', 'http_429', 'http_5xx', 'http_4xx', 'timeout'], 'retryPolicy.retryOn'],
  ])('refuses retryOn %j, naming %s', (retryOn, field) => {
    expect(fields({ retryOn })).toEqual([field]);
  });

  it('refuses unknown fields by name (spec 7: unrecognised field)', () => {
    expect(fields({ maxAttempts: 3, jitter: 0.5 })).toEqual(['retryPolicy.jitter']);
  });

  it.each([[null], [[]], ['{}'], [42]])('refuses %j as a whole', (input) => {
    expect(fields(input)).toEqual(['retryPolicy']);
  });

  it('reports every problem at once', () => {
    expect(fields({ maxAttempts: 0, backoff: 'x', initialDelaySeconds: 1, maxDelaySeconds: 1, retryOn: ['nope'], enabled: 1 })).toEqual([
      'retryPolicy.enabled',
      'retryPolicy.maxAttempts',
      'retryPolicy.backoff',
      'retryPolicy.initialDelaySeconds',
      'retryPolicy.maxDelaySeconds',
      'retryPolicy.retryOn[0]',
    ]);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = validateRetryPolicy(input);
        expect(typeof result.ok).toBe('boolean');
      }),
      { seed: 11, numRuns: 500 },
    );
  });
});

describe('validateFailureHandling', () => {
  it.each([
    [{}, true],
    [{ autoDisableAfter: 0 }, false],
    [{ autoDisableAfter: 1 }, true],
    [{ autoDisableAfter: 100 }, true],
    [{ autoDisableAfter: 101 }, false],
    [{ disableOnGone: false }, true],
    [{ disableOnGone: 'no' }, false],
  ])('%j → accepted: %s', (input, ok) => {
    expect(validateFailureHandling(input).ok).toBe(ok);
  });

  it('defaults to 6.4 rule 5', () => {
    expect(validateFailureHandling({})).toEqual({ ok: true, value: DEFAULT_FAILURE_HANDLING });
    expect(DEFAULT_FAILURE_HANDLING).toEqual({ autoDisableAfter: 15, disableOnGone: true });
  });
});

describe('validationErrorEnvelope', () => {
  it('has the spec 7 error envelope shape with VALIDATION_ERROR and the fields in details', () => {
    const problems = [{ field: 'retryPolicy.maxAttempts', message: 'must be an integer from 1 to 10 (got 11)' }];
    expect(validationErrorEnvelope(problems, '2026-06-01T00:00:00.000Z')).toEqual({
      success: false,
      error: 'retryPolicy.maxAttempts must be an integer from 1 to 10 (got 11)',
      code: 'VALIDATION_ERROR',
      details: problems,
      timestamp: '2026-06-01T00:00:00.000Z',
    });
  });
});
