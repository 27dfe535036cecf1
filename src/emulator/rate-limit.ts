/**
 * Section 8 budgets per API client: 300 reads and 120 writes a minute, in fixed windows that
 * start at the client's first request. `scale` shrinks the window (tests). The answer carries
 * what the RateLimit headers of the IETF draft report.
 */
export type Budget = 'read' | 'write';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window starts over (rounded up, at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  take(client: string, budget: Budget, nowMs: number): RateDecision;
}

export const LIMITS: Readonly<Record<Budget, number>> = Object.freeze({ read: 300, write: 120 });

export function createRateLimiter(scale = 1): RateLimiter {
  const windowMs = Math.max(1, 60_000 * scale);
  const windows = new Map<string, { startMs: number; used: number }>();
  return {
    take(client, budget, nowMs) {
      const key = `${budget}:${client}`;
      let w = windows.get(key);
      if (w === undefined || nowMs - w.startMs >= windowMs) {
        w = { startMs: nowMs, used: 0 };
        windows.set(key, w);
      }
      const limit = LIMITS[budget];
      const resetSeconds = Math.max(1, Math.ceil((w.startMs + windowMs - nowMs) / 1000));
      if (w.used >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
      w.used++;
      return { allowed: true, limit, remaining: limit - w.used, resetSeconds };
    },
  };
}
