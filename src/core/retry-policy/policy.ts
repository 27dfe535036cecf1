/** The webhook retry policy and failure handling (spec 2.11, 6.4 rules 3-5, section 8 bounds). */

export type FailureClass =
  | 'timeout'
  | 'network'
  | 'http_408'
  | 'http_429'
  | 'http_5xx'
  | 'http_4xx'
  | 'http_410'
  | 'http_unsupported'
  | 'redirect'
  | 'blocked';

/** Classes a policy may list in `retryOn` (spec 2.11). */
export type RetryableClass = 'timeout' | 'network' | 'http_408' | 'http_429' | 'http_5xx' | 'http_4xx';

export const RETRYABLE_CLASSES: readonly RetryableClass[] = ['timeout', 'network', 'http_408', 'http_429', 'http_5xx', 'http_4xx'];

export interface RetryPolicy {
  enabled: boolean;
  maxAttempts: number;
  backoff: 'exponential' | 'fixed';
  initialDelaySeconds: number;
  maxDelaySeconds: number;
  retryOn: readonly RetryableClass[];
}

export interface FailureHandling {
  autoDisableAfter: number;
  disableOnGone: boolean;
}

/** Spec 6.4 rule 3. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  enabled: true,
  maxAttempts: 6,
  backoff: 'exponential',
  initialDelaySeconds: 60,
  maxDelaySeconds: 21600,
  retryOn: Object.freeze(['timeout', 'network', 'http_408', 'http_429', 'http_5xx'] as RetryableClass[]),
});

/** Spec 6.4 rule 5. */
export const DEFAULT_FAILURE_HANDLING: FailureHandling = Object.freeze({ autoDisableAfter: 15, disableOnGone: true });

/** Jitter applied around the nominal wait (spec 6.4 rule 4). */
export const JITTER = 0.2;

/** Retry-After is honoured from this many seconds up to maxDelaySeconds (spec 6.4 rule 1). */
export const RETRY_AFTER_FLOOR_SECONDS = 10;

/**
 * Nominal wait before retry `n` (n = 1 is the wait between attempt 1 and attempt 2), before
 * jitter and cap: `initialDelaySeconds × 4^(n-1)` for exponential, `initialDelaySeconds` for fixed.
 */
export function nominalDelaySeconds(policy: RetryPolicy, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`retry number must be an integer >= 1, got ${n}`);
  return policy.backoff === 'fixed' ? policy.initialDelaySeconds : policy.initialDelaySeconds * 4 ** (n - 1);
}

/** The allowed wait before retry `n`: nominal ±20%, each bound capped at maxDelaySeconds. */
export function delayBounds(policy: RetryPolicy, n: number): { nominal: number; min: number; max: number; capped: boolean } {
  const nominal = nominalDelaySeconds(policy, n);
  const cap = policy.maxDelaySeconds;
  return {
    nominal: Math.min(nominal, cap),
    min: Math.min(nominal * (1 - JITTER), cap),
    max: Math.min(nominal * (1 + JITTER), cap),
    capped: nominal * (1 - JITTER) >= cap,
  };
}

/**
 * The wait the sender uses before retry `n`, drawn uniformly inside `delayBounds` by `random`
 * (a function returning [0, 1)). Fixed backoff waits exactly initialDelaySeconds (spec 6.4 rule 4).
 */
export function drawDelaySeconds(policy: RetryPolicy, n: number, random: () => number): number {
  if (policy.backoff === 'fixed') return Math.min(policy.initialDelaySeconds, policy.maxDelaySeconds);
  const { min, max } = delayBounds(policy, n);
  return min + (max - min) * random();
}

/** How long a Retry-After asks to wait, clamped to [10 s, maxDelaySeconds] (spec 6.4 rule 1). */
export function clampRetryAfterSeconds(policy: RetryPolicy, requestedSeconds: number): number {
  return Math.min(Math.max(requestedSeconds, RETRY_AFTER_FLOOR_SECONDS), policy.maxDelaySeconds);
}
