/** When each retry may arrive, in hookrelay's milliseconds (spec 6.4 rules 1 and 4). */
import { JITTER, clampRetryAfterSeconds, delayBounds, nominalDelaySeconds } from '../retry-policy/policy.js';
import { honoursRetryAfter, retryAfterSeconds } from './retry-after.js';
import type { CheckOptions } from './options.js';
import { roundMs } from './numbers.js';
import type { TimelineEntry } from './types.js';

export interface Window {
  /** The policy's bounds in (unscaled) seconds. */
  minSeconds: number;
  maxSeconds: number;
  /** Earliest and latest accepted gap (ms after the previous attempt ended), time scale and slack applied. */
  lowMs: number;
  highMs: number;
}

export interface BackoffWindow extends Window {
  nominalSeconds: number;
  /** True when maxDelaySeconds cut the upper bound. */
  capped: boolean;
}

/**
 * The accepted gap before retry `n` (n = 1 precedes attempt 2): `delayBounds` (nominal ±20%, capped
 * at maxDelaySeconds) × timeScale, widened by the slack. Returns null for n < 1.
 */
export function backoffWindow(options: CheckOptions, n: number): BackoffWindow | null {
  if (!Number.isInteger(n) || n < 1) return null;
  const b = delayBounds(options.policy, n);
  const scale = options.timeScale * 1000;
  return {
    nominalSeconds: b.nominal,
    minSeconds: b.min,
    maxSeconds: b.max,
    capped: nominalDelaySeconds(options.policy, n) * (1 + JITTER) > options.policy.maxDelaySeconds,
    lowMs: roundMs(b.min * scale) - options.slack.earlyMs,
    highMs: roundMs(b.max * scale) + options.slack.lateMs,
  };
}

export interface RetryAfterWindow extends Window {
  /** What the value asked for, seconds (relative to the answer for an HTTP date). */
  requestedSeconds: number;
  /** After the policy's clamp to [10 s, maxDelaySeconds]. */
  clampedSeconds: number;
}

/**
 * The accepted gap after an answer whose Retry-After a sender must honour (429 or 503 with a
 * readable value): at least the clamped value; at most the longer of it and the backoff's upper
 * bound (a sender may wait its backoff when that is longer). Null when no Retry-After is in effect.
 */
export function retryAfterWindow(options: CheckOptions, previous: TimelineEntry, n: number): RetryAfterWindow | null {
  // A late answer (class timeout) never reached the sender, Retry-After included.
  if (!honoursRetryAfter(previous.status) || previous.answerClass === 'timeout') return null;
  const requested = retryAfterSeconds(previous.retryAfter, previous.finishedAt);
  if (requested === null) return null;
  const clamped = clampRetryAfterSeconds(options.policy, requested);
  const backoff = backoffWindow(options, n);
  const max = Math.max(clamped, backoff?.maxSeconds ?? clamped);
  const scale = options.timeScale * 1000;
  return {
    requestedSeconds: requested,
    clampedSeconds: clamped,
    minSeconds: clamped,
    maxSeconds: max,
    lowMs: roundMs(clamped * scale) - options.slack.earlyMs,
    highMs: roundMs(max * scale) + options.slack.lateMs,
  };
}

/** The window for the retry after `previous`: its Retry-After when one is in effect, else the backoff. */
export function nextRetryWindow(options: CheckOptions, previous: TimelineEntry, n: number): Window | null {
  return retryAfterWindow(options, previous, n) ?? backoffWindow(options, n);
}
