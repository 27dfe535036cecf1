import { describe, expect, it } from 'vitest';
import { DEFAULT_SLACK, LOCAL_SLACK, allowedAttempts, resolveCheckOptions } from '../../../src/core/conformance/options.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY } from '../../../src/core/retry-policy/policy.js';

describe('resolveCheckOptions', () => {
  it('fills the spec defaults', () => {
    expect(resolveCheckOptions()).toEqual({
      ok: true,
      options: {
        policy: DEFAULT_RETRY_POLICY,
        failureHandling: DEFAULT_FAILURE_HANDLING,
        timeScale: 1,
        toleranceSeconds: 300,
        attemptTimeoutSeconds: 10,
        slack: DEFAULT_SLACK,
        complete: 'auto',
        now: null,
      },
    });
  });

  it('defaults to the local slack for a scaled run (only hookrelay\'s own sender compresses time)', () => {
    const r = resolveCheckOptions({ timeScale: 0.01 });
    expect(r.ok && r.options.slack).toEqual(LOCAL_SLACK);
    expect(LOCAL_SLACK).toEqual({ earlyMs: 100, lateMs: 500 });
    expect(DEFAULT_SLACK).toEqual({ earlyMs: 250, lateMs: 1000 });
  });

  it('merges a partial slack', () => {
    const r = resolveCheckOptions({ slack: { lateMs: 50 } });
    expect(r.ok && r.options.slack).toEqual({ earlyMs: 250, lateMs: 50 });
  });

  it('does not scale the attempt timeout with the time scale', () => {
    const r = resolveCheckOptions({ timeScale: 0.01 });
    expect(r.ok && r.options.attemptTimeoutSeconds).toBe(10);
  });

  it('lists every problem at once', () => {
    const r = resolveCheckOptions({
      timeScale: 0,
      toleranceSeconds: -1,
      attemptTimeoutSeconds: Number.NaN,
      slack: { earlyMs: -1 },
      policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 0, retryOn: ['http_410' as never] },
      failureHandling: { autoDisableAfter: 1.5, disableOnGone: true },
      complete: 'maybe' as never,
      now: Number.POSITIVE_INFINITY,
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.map((p) => p.split(' ')[0])).toEqual([
      'policy.maxAttempts',
      'policy.retryOn',
      'failureHandling.autoDisableAfter',
      'timeScale',
      'toleranceSeconds',
      'attemptTimeoutSeconds',
      'slack.earlyMs',
      'complete',
      'now',
    ]);
  });
});

describe('allowedAttempts', () => {
  it('is maxAttempts, or 1 when retries are off', () => {
    expect(allowedAttempts(DEFAULT_RETRY_POLICY)).toBe(6);
    expect(allowedAttempts({ ...DEFAULT_RETRY_POLICY, enabled: false })).toBe(1);
  });
});
