/**
 * The one rate limit of hand-offs: a token bucket of `burst` tokens refilled at `perSecond`. A
 * start takes a token; after a quiet while at most `burst` start at once, never more (a stall is
 * not owed back). With burst 1 the starts are evenly spaced, one every 1000/perSecond ms. Used by
 * the relay's pace per target (relay/target-gates.ts) and a bulk replay's `--rate` (relay/replay-job.ts).
 */
export interface RateBucket {
  /** Milliseconds until a start may take a token at `now` (0: now). */
  waitMs(now: number): number;
  /** A start at `now` takes a token (it may go below one: the next start waits the longer). */
  take(now: number): void;
}

export function createRateBucket(perSecond: number, burst: number, now: number): RateBucket {
  // As a generic cell rate: one start every `interval` ms, `burst` of them ahead of time at most.
  // `due` is when the bucket would be empty again: times, not fractions of a token, stay exact.
  const interval = 1000 / perSecond;
  const ahead = (burst - 1) * interval;
  let due = now;
  return {
    waitMs: (at) => Math.max(0, Math.ceil(due - ahead - at)),
    take(at) {
      due = Math.max(due, at) + interval;
    },
  };
}
