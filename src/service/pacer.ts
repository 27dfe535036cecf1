/**
 * Pacing for the service's budgets (spec 8: 300 reads and 120 writes a minute per API client).
 * Two sources, the stricter wins: our own count of what we sent in the last minute, so a run
 * stays inside the budget even when the service sends no RateLimit headers, and the service's
 * `RateLimit-Remaining` (with `RateLimit-Reset` or `Retry-After` when sent), which knows about
 * other clients of the same key. Time is a parameter; the pacer only says how long to wait.
 */
export type Budget = 'read' | 'write';

export const BUDGET_PER_MINUTE: Readonly<Record<Budget, number>> = Object.freeze({ read: 300, write: 120 });

const WINDOW_MS = 60_000;
/** When the service says nothing about when its window starts over, look again after this. */
const UNKNOWN_RESET_MS = 1_000;
/** Below this many requests left, the rest of the window is spread evenly rather than spent at once. */
const SPREAD_BELOW = 10;

export interface RateHeaders {
  remaining?: number;
  /** Seconds until the service's window starts over (RateLimit-Reset), when sent. */
  resetSeconds?: number;
  /** Retry-After in seconds, when sent. */
  retryAfterSeconds?: number;
}

export interface Pacer {
  /** Milliseconds to wait before sending a request of this budget (0: send now). */
  delayBefore(budget: Budget, nowMs: number): number;
  /** Records a request as sent. */
  sent(budget: Budget, nowMs: number): void;
  /** Takes in what the answer's headers say about the budget. */
  observe(budget: Budget, headers: RateHeaders, nowMs: number): void;
}

export function createPacer(perMinute: Readonly<Record<Budget, number>> = BUDGET_PER_MINUTE): Pacer {
  const sentAt: Record<Budget, number[]> = { read: [], write: [] };
  const notBefore: Record<Budget, number> = { read: 0, write: 0 };
  return {
    delayBefore(budget, nowMs) {
      const times = sentAt[budget];
      while (times.length > 0 && times[0]! <= nowMs - WINDOW_MS) times.shift();
      let wait = Math.max(0, notBefore[budget] - nowMs);
      if (times.length >= perMinute[budget]) wait = Math.max(wait, times[times.length - perMinute[budget]]! + WINDOW_MS - nowMs);
      return Math.ceil(wait);
    },
    sent(budget, nowMs) {
      sentAt[budget].push(nowMs);
    },
    observe(budget, headers, nowMs) {
      const { remaining } = headers;
      if (remaining === undefined) return;
      const resetMs = headers.resetSeconds !== undefined ? headers.resetSeconds * 1000 : headers.retryAfterSeconds !== undefined ? headers.retryAfterSeconds * 1000 : undefined;
      if (remaining <= 0) notBefore[budget] = Math.max(notBefore[budget], nowMs + (resetMs ?? UNKNOWN_RESET_MS));
      else if (remaining < SPREAD_BELOW && resetMs !== undefined) notBefore[budget] = Math.max(notBefore[budget], nowMs + resetMs / (remaining + 1));
    },
  };
}

/** A non-negative integer header value, or undefined (a hostile value is ignored, never trusted). */
export function headerInteger(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text)) return undefined;
  return Number(text.trim());
}

/** How long a paced run of `requests` takes at most, in ms, for "this will take about …". */
export function pacedDurationMs(requests: number, budget: Budget, perMinute: Readonly<Record<Budget, number>> = BUDGET_PER_MINUTE): number {
  if (requests <= perMinute[budget]) return 0;
  return Math.ceil(requests / perMinute[budget] - 1) * WINDOW_MS;
}
