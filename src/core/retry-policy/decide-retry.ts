/** What follows an attempt: success, failure, or a retry after a wait (spec 6.4 rules 1-4). */
import type { AttemptOutcome } from './classify-outcome.js';
import {
  clampRetryAfterSeconds,
  drawDelaySeconds,
  type FailureClass,
  type RetryPolicy,
  type RetryableClass,
} from './policy.js';
import { parseRetryAfter } from './retry-after.js';
import { retryWindow } from './schedule.js';
import type { RandomSource } from '../seeded-random.js';

/** Spec 6.4 rule 2: these classes fail at once whatever retryOn says. */
export const NEVER_RETRIED: readonly FailureClass[] = ['http_410', 'http_unsupported', 'redirect', 'blocked'];

export type FailWhy = 'never_retried' | 'retries_disabled' | 'not_in_retry_on' | 'attempts_exhausted';

export type RetryDecision =
  | { action: 'succeed' }
  | { action: 'fail'; why: FailWhy }
  | {
      action: 'retry';
      /** 1 for the wait between attempt 1 and attempt 2. */
      retryNumber: number;
      /** The wait chosen by the policy, in policy seconds (before any time scale). */
      waitSeconds: number;
      why: 'backoff' | 'retry_after';
      /** The backoff window for this retry (spec 6.4 rule 4). */
      bounds: { nominal: number; min: number; max: number };
      /** Set when a Retry-After was honoured: what it asked for, before the [10 s, max] clamp. */
      retryAfterRequestedSeconds?: number;
    };

/**
 * Decides what follows attempt `attemptNumber` with `outcome` under `policy`: succeed on 2xx;
 * fail when the class is never retried, retries are disabled, the class is not in retryOn or
 * maxAttempts is reached; otherwise retry after the backoff wait, or after a Retry-After
 * (429, 503) clamped to [10 s, maxDelaySeconds]. `random` is drawn from only for jitter.
 */
export function decideRetry(
  policy: RetryPolicy,
  outcome: AttemptOutcome,
  attemptNumber: number,
  nowMs: number,
  random: RandomSource,
): RetryDecision {
  if (outcome.delivered) return { action: 'succeed' };
  const failureClass = outcome.failureClass;
  if (failureClass === null || NEVER_RETRIED.includes(failureClass)) return { action: 'fail', why: 'never_retried' };
  if (!policy.enabled) return { action: 'fail', why: 'retries_disabled' };
  if (!policy.retryOn.includes(failureClass as RetryableClass)) return { action: 'fail', why: 'not_in_retry_on' };
  if (attemptNumber >= policy.maxAttempts) return { action: 'fail', why: 'attempts_exhausted' };

  const retryNumber = attemptNumber;
  const { nominal, min, max } = retryWindow(policy, retryNumber);
  const bounds = { nominal, min, max };
  const retryAfter = parseRetryAfter(outcome.retryAfter, nowMs);
  if (retryAfter.ok) {
    return {
      action: 'retry',
      retryNumber,
      waitSeconds: clampRetryAfterSeconds(policy, retryAfter.seconds),
      why: 'retry_after',
      bounds,
      retryAfterRequestedSeconds: retryAfter.seconds,
    };
  }
  return { action: 'retry', retryNumber, waitSeconds: drawDelaySeconds(policy, retryNumber, random), why: 'backoff', bounds };
}
