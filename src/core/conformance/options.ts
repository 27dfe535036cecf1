/** What `check` judges against, and how loosely it measures (issue 7; spec 6.4, section 8). */
import {
  DEFAULT_FAILURE_HANDLING,
  DEFAULT_RETRY_POLICY,
  RETRYABLE_CLASSES,
  type FailureHandling,
  type RetryPolicy,
} from '../retry-policy/policy.js';

/**
 * Measurement slack, in real milliseconds (never scaled by `timeScale`: latency is not compressed).
 *
 * hookrelay measures a wait from its own `finishedAt` of one attempt to its own `receivedAt` of the
 * next, on one clock. Between the two, beyond the sender's wait, lie: the answer's way back to the
 * sender, timer lateness, a new TCP connection and TLS handshake, and the request's way in. That is
 * at most about four round trips; at a pessimistic 250 ms round trip, 4 × 250 ms = 1000 ms `lateMs`.
 * A gap can only look *shorter* than the wait when hookrelay stamps `finishedAt` after the sender
 * already knew (a hang or close seen by the sender first): one one-way trip, and Node timers firing
 * up to 1 ms early; 250 ms `earlyMs` covers a full round trip.
 * For runs with `--time-scale` the waits shrink to milliseconds and the default is LOCAL_SLACK.
 */
export interface Slack {
  earlyMs: number;
  lateMs: number;
}

export const DEFAULT_SLACK: Slack = Object.freeze({ earlyMs: 250, lateMs: 1000 });

/**
 * The default when `timeScale` is not 1: only hookrelay's own sender compresses time, so the run is
 * local (sub-millisecond network). What is left is event-loop lag on a loaded machine: hookrelay
 * noticing a close late (100 ms early) and the sender's timer firing late (500 ms).
 */
export const LOCAL_SLACK: Slack = Object.freeze({ earlyMs: 100, lateMs: 500 });

/** The spec's attempt timeout (spec 6.4, section 8). */
export const DEFAULT_ATTEMPT_TIMEOUT_SECONDS = 10;
/** The spec's recommended signature tolerance (spec 6.3). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * A hung attempt is given up "at about" the timeout: the sender's clock may start before the request
 * reaches hookrelay (connect and TLS count against it: up to four round trips, 1 s), and hookrelay
 * sees the close a one-way trip later, plus timer lateness on a loaded sender (2 s).
 */
export const TIMEOUT_SLACK = Object.freeze({ earlyMs: 1000, lateMs: 2000 });

export interface CheckOptions {
  policy: RetryPolicy;
  failureHandling: FailureHandling;
  /** The sender compressed every wait by this factor (`--time-scale`); expected waits are multiplied by it. */
  timeScale: number;
  toleranceSeconds: number;
  /** Not scaled by `timeScale` (the sender's 10 s timeout is real time). */
  attemptTimeoutSeconds: number;
  slack: Slack;
  /**
   * True when the slack was given (`--slack`), so a delivery judged at its own time-scale mark keeps
   * it; otherwise the slack follows that delivery's scale. Absent means false.
   */
  slackGiven?: boolean;
  /**
   * Whether more attempts may still come: true (the run is over), false (every delivery that could
   * still be retried is in progress), 'auto' (in progress while `now` is before the latest moment the
   * next retry is due; without `now`, the run is taken as over).
   */
  complete: boolean | 'auto';
  /** The judging time, ms since the epoch (only used by `complete: 'auto'`). */
  now: number | null;
}

export type CheckOptionsInput = Partial<Omit<CheckOptions, 'slack' | 'slackGiven'>> & { slack?: Partial<Slack> };

export type ResolvedOptions = { ok: true; options: CheckOptions } | { ok: false; problems: string[] };

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Fills defaults (spec default policy and failure handling, time scale 1, tolerance 300 s, timeout
 * 10 s, DEFAULT_SLACK — LOCAL_SLACK for a scaled run —, complete 'auto') and checks every value. Refuses with the list of all
 * problems at once; never throws.
 */
export function resolveCheckOptions(input: CheckOptionsInput = {}): ResolvedOptions {
  const problems: string[] = [];
  const policy = input.policy ?? DEFAULT_RETRY_POLICY;
  const failureHandling = input.failureHandling ?? DEFAULT_FAILURE_HANDLING;
  const timeScale = input.timeScale ?? 1;
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const attemptTimeoutSeconds = input.attemptTimeoutSeconds ?? DEFAULT_ATTEMPT_TIMEOUT_SECONDS;
  const slack = { ...(timeScale === 1 ? DEFAULT_SLACK : LOCAL_SLACK), ...input.slack };
  const complete = input.complete ?? 'auto';
  const now = input.now ?? null;

  if (typeof policy.enabled !== 'boolean') problems.push('policy.enabled must be true or false');
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) problems.push(`policy.maxAttempts must be an integer >= 1, got ${String(policy.maxAttempts)}`);
  if (policy.backoff !== 'exponential' && policy.backoff !== 'fixed') problems.push(`policy.backoff must be "exponential" or "fixed", got ${String(policy.backoff)}`);
  if (!isNum(policy.initialDelaySeconds) || policy.initialDelaySeconds < 0) problems.push(`policy.initialDelaySeconds must be a number >= 0, got ${String(policy.initialDelaySeconds)}`);
  if (!isNum(policy.maxDelaySeconds) || policy.maxDelaySeconds < 0) problems.push(`policy.maxDelaySeconds must be a number >= 0, got ${String(policy.maxDelaySeconds)}`);
  if (!Array.isArray(policy.retryOn) || policy.retryOn.some((c) => !RETRYABLE_CLASSES.includes(c))) {
    problems.push(`policy.retryOn must list only ${RETRYABLE_CLASSES.join(', ')}`);
  }
  if (!Number.isInteger(failureHandling.autoDisableAfter) || failureHandling.autoDisableAfter < 1) {
    problems.push(`failureHandling.autoDisableAfter must be an integer >= 1, got ${String(failureHandling.autoDisableAfter)}`);
  }
  if (typeof failureHandling.disableOnGone !== 'boolean') problems.push('failureHandling.disableOnGone must be true or false');
  if (!isNum(timeScale) || timeScale <= 0) problems.push(`timeScale must be a number > 0, got ${String(timeScale)}`);
  if (!isNum(toleranceSeconds) || toleranceSeconds < 0) problems.push(`toleranceSeconds must be a number >= 0, got ${String(toleranceSeconds)}`);
  if (!isNum(attemptTimeoutSeconds) || attemptTimeoutSeconds <= 0) problems.push(`attemptTimeoutSeconds must be a number > 0, got ${String(attemptTimeoutSeconds)}`);
  if (!isNum(slack.earlyMs) || slack.earlyMs < 0) problems.push(`slack.earlyMs must be a number >= 0, got ${String(slack.earlyMs)}`);
  if (!isNum(slack.lateMs) || slack.lateMs < 0) problems.push(`slack.lateMs must be a number >= 0, got ${String(slack.lateMs)}`);
  if (complete !== true && complete !== false && complete !== 'auto') problems.push(`complete must be true, false or "auto", got ${String(complete)}`);
  if (now !== null && !isNum(now)) problems.push(`now must be ms since the epoch, got ${String(now)}`);

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    options: { policy, failureHandling, timeScale, toleranceSeconds, attemptTimeoutSeconds, slack, complete, now, ...(input.slack === undefined ? {} : { slackGiven: true }) },
  };
}

/** Attempts the policy allows in all: `maxAttempts`, or 1 when retries are off (spec 6.4 rule 4). */
export function allowedAttempts(policy: RetryPolicy): number {
  return policy.enabled ? policy.maxAttempts : 1;
}
