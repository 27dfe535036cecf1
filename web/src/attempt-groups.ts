/**
 * Arrivals as the sender's attempts: an attempt that followed redirect hops is one entry with its
 * hops, not one per hop. The API numbers each arrival's attempt (`senderAttempt`, grouped as the
 * conformance judge groups them); this only gathers them. Pure.
 */
import type { AttemptView } from './types.js';

export interface SenderAttempt {
  /** The sender's attempt, 1 for its first. */
  number: number;
  /** The request that opened it, then each redirect hop it followed, in arrival order. */
  arrivals: AttemptView[];
}

/** Consecutive arrivals with the same `senderAttempt` form one attempt; an arrival without one stands alone. */
export function senderAttempts(attempts: readonly AttemptView[]): SenderAttempt[] {
  const out: SenderAttempt[] = [];
  for (const a of attempts) {
    const last = out[out.length - 1];
    const number = typeof a.senderAttempt === 'number' ? a.senderAttempt : null;
    if (last && number !== null && last.number === number && last.arrivals[0]!.senderAttempt === number) last.arrivals.push(a);
    else out.push({ number: number ?? out.length + 1, arrivals: [a] });
  }
  return out;
}

/** The arrival that ended the attempt: its answer is the one the sender acted on. */
export function finalArrival(attempt: SenderAttempt): AttemptView {
  return attempt.arrivals[attempt.arrivals.length - 1]!;
}

const REFUSED = new Set(['rejected', 'faulted', 'unavailable']);

/** Attempts whose final answer was a refusal: hops that redirected on to an accept are not. */
export function refusedAttempts(attempts: readonly AttemptView[]): number {
  return senderAttempts(attempts).filter((a) => REFUSED.has(finalArrival(a).outcome)).length;
}
