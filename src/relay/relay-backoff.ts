/** When a failed hand-off is tried again: doubling from 1 s, capped, ±20% jitter (core/backoff.ts); bounded tries. */
import { jitteredBackoffMs } from '../core/backoff.js';

export interface RelayRetryPolicy {
  /** Tries before the job is `dead` (it can still be retried by hand). */
  maxTries: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RELAY_RETRY: RelayRetryPolicy = { maxTries: 15, initialDelayMs: 1000, maxDelayMs: 5 * 60_000 };

/** Wait after failed try `n` (1-based); `random` returns [0, 1). */
export function relayDelayMs(policy: RelayRetryPolicy, n: number, random: () => number): number {
  return jitteredBackoffMs({ initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs }, n, random);
}

/** What becomes of a job after try `n` that answered `status` (null: no answer). */
export function nextRelayState(
  policy: RelayRetryPolicy,
  n: number,
  status: number | null,
  finishedAt: number,
  random: () => number,
): { state: 'done' } | { state: 'pending'; nextAt: number } | { state: 'dead' } {
  if (status !== null && status >= 200 && status < 300) return { state: 'done' };
  if (n >= policy.maxTries) return { state: 'dead' };
  return { state: 'pending', nextAt: finishedAt + relayDelayMs(policy, n, random) };
}
