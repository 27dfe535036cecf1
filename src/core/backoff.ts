/**
 * The one jittered backoff: doubling from `initialMs`, capped at `maxMs`, ±20% jitter. The relay's
 * retries, the service client's and the bridge client's reconnects all wait by it. (The service's
 * own retry policy, ×4 per retry, is the spec's: src/core/retry-policy/.)
 */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The wait before retry `n` (1-based); `random` returns [0, 1). */
export function jitteredBackoffMs(backoff: Backoff, n: number, random: () => number): number {
  const nominal = Math.min(backoff.initialMs * 2 ** Math.max(0, n - 1), backoff.maxMs);
  return Math.round(nominal * (0.8 + 0.4 * random()));
}
