import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/core/retry-policy/policy.js';
import { policyFromFlags } from '../../src/sender/policy-options.js';

const fieldsOf = (r: ReturnType<typeof policyFromFlags>) => (r.ok ? [] : r.problems.map((p) => p.field));

describe('policyFromFlags', () => {
  it('gives the defaults with no flags', () => {
    expect(policyFromFlags({})).toEqual({ ok: true, value: DEFAULT_RETRY_POLICY });
  });

  it('applies single flags over the defaults', () => {
    expect(policyFromFlags({ maxAttempts: '3', backoff: 'fixed', initialDelay: '30', maxDelay: '600', retryOn: 'timeout, http_4xx' })).toEqual({
      ok: true,
      value: { enabled: true, maxAttempts: 3, backoff: 'fixed', initialDelaySeconds: 30, maxDelaySeconds: 600, retryOn: ['timeout', 'http_4xx'] },
    });
    expect(policyFromFlags({ retryOn: '' })).toMatchObject({ ok: true, value: { retryOn: [] } });
    expect(policyFromFlags({ retryOn: 'none' })).toMatchObject({ ok: true, value: { retryOn: [] } });
  });

  it('takes --retry-policy JSON, missing fields defaulted', () => {
    expect(policyFromFlags({ retryPolicy: '{"enabled":false}' })).toEqual({ ok: true, value: { ...DEFAULT_RETRY_POLICY, enabled: false } });
  });

  it.each([
    [{ maxAttempts: '11' }, ['retryPolicy.maxAttempts']],
    [{ maxAttempts: 'three' }, ['retryPolicy.maxAttempts']],
    [{ initialDelay: '5' }, ['retryPolicy.initialDelaySeconds']],
    [{ maxDelay: '100000' }, ['retryPolicy.maxDelaySeconds']],
    [{ initialDelay: '600', maxDelay: '300' }, ['retryPolicy.initialDelaySeconds']],
    [{ backoff: 'linear' }, ['retryPolicy.backoff']],
    [{ retryOn: 'timeout,http_410' }, ['retryPolicy.retryOn[1]']],
    [{ retryPolicy: '{nope' }, ['retryPolicy']],
    [{ retryPolicy: '{"maxAttempts":0}' }, ['retryPolicy.maxAttempts']],
    [{ retryPolicy: '{}', maxAttempts: '3' }, ['retryPolicy']],
  ])('refuses %j naming %j', (flags, fields) => {
    expect(fieldsOf(policyFromFlags(flags))).toEqual(fields);
  });
});
