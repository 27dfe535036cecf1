/** The retry schedule of a policy: per retry the wait window, the cap and the cumulative time (spec 6.4 rule 4). */
import { JITTER, RETRY_AFTER_FLOOR_SECONDS, nominalDelaySeconds, type RetryPolicy } from './policy.js';

/** The wait allowed before one retry, in seconds. */
export interface RetryWindow {
  /** `initialDelaySeconds × 4^(n-1)` (or the initial delay for fixed), before the cap. */
  uncappedNominal: number;
  /** The nominal wait after the cap. */
  nominal: number;
  /** Lowest and highest wait the jitter can give, each capped at maxDelaySeconds. */
  min: number;
  max: number;
  /** True when maxDelaySeconds cuts into the window. */
  capped: boolean;
}

/**
 * The wait window before retry `n` (n >= 1): exponential gets ±20% jitter, capped at
 * maxDelaySeconds; fixed waits exactly initialDelaySeconds (spec 6.4 rule 4 gives fixed no jitter).
 */
export function retryWindow(policy: RetryPolicy, n: number): RetryWindow {
  const uncappedNominal = nominalDelaySeconds(policy, n);
  const cap = policy.maxDelaySeconds;
  if (policy.backoff === 'fixed') {
    const wait = Math.min(uncappedNominal, cap);
    return { uncappedNominal, nominal: wait, min: wait, max: wait, capped: uncappedNominal > cap };
  }
  return {
    uncappedNominal,
    nominal: Math.min(uncappedNominal, cap),
    min: Math.min(uncappedNominal * (1 - JITTER), cap),
    max: Math.min(uncappedNominal * (1 + JITTER), cap),
    capped: uncappedNominal * (1 + JITTER) > cap,
  };
}

export interface ScheduleRow extends RetryWindow {
  /** 1 for the first retry. */
  retry: number;
  /** The x-service-delivery-attempt value of the attempt this wait precedes. */
  beforeAttempt: number;
  capSeconds: number;
  /** Time from the first attempt to this retry, summing nominal / min / max waits (attempt durations excluded). */
  cumulativeNominal: number;
  cumulativeMin: number;
  cumulativeMax: number;
}

export interface Schedule {
  policy: RetryPolicy;
  retries: ScheduleRow[];
  /** Retry-After, where honoured (429, 503), replaces the wait and is clamped to this range (spec 6.4 rule 1). */
  retryAfterRange: { minSeconds: number; maxSeconds: number };
}

/**
 * Every retry a policy allows, in order. Empty when retries are disabled or maxAttempts is 1.
 * With the defaults the cumulative nominal times are 1 min, 5 min, 21 min, 1 h 25 min and
 * 5 h 41 min (the spec's "about ... 5 h 40 min").
 */
export function retrySchedule(policy: RetryPolicy): Schedule {
  const retries: ScheduleRow[] = [];
  const cumulative = { nominal: 0, min: 0, max: 0 };
  const lastRetry = policy.enabled ? policy.maxAttempts - 1 : 0;
  for (let retry = 1; retry <= lastRetry; retry++) {
    const window = retryWindow(policy, retry);
    cumulative.nominal += window.nominal;
    cumulative.min += window.min;
    cumulative.max += window.max;
    retries.push({
      ...window,
      retry,
      beforeAttempt: retry + 1,
      capSeconds: policy.maxDelaySeconds,
      cumulativeNominal: cumulative.nominal,
      cumulativeMin: cumulative.min,
      cumulativeMax: cumulative.max,
    });
  }
  return { policy, retries, retryAfterRange: { minSeconds: RETRY_AFTER_FLOOR_SECONDS, maxSeconds: policy.maxDelaySeconds } };
}
