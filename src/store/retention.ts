/**
 * Retention: `listen --retain` prunes through the store at start and then every hour. The store
 * never removes a delivery whose relay is pending, and keeps everything last seen within the
 * window, so dedupe holds for any retry inside it (spec 6.4 retries span hours; the default
 * window is 30 days).
 */
import type { DeliveryStore, PruneResult } from './store.js';

export const DEFAULT_RETAIN = '30d';
export const RETENTION_INTERVAL_MS = 3_600_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a duration such as `30d`, `72h`, `90m`, `3600s` or `2w` into milliseconds; `0` and
 * `off` mean no retention (null). Refuses anything else with a message naming the forms.
 */
export function parseRetainDuration(text: string): { ok: true; ms: number | null } | { ok: false; message: string } {
  const value = text.trim().toLowerCase();
  if (value === '0' || value === 'off') return { ok: true, ms: null };
  const match = /^(\d{1,9})(ms|s|m|h|d|w)$/.exec(value);
  if (!match) return { ok: false, message: `must be a duration such as 30d, 72h, 90m or 3600s (or 0/off to keep everything), got ${JSON.stringify(text)}` };
  const ms = Number(match[1]) * UNITS[match[2]!]!;
  if (ms < 60_000) return { ok: false, message: `must be at least one minute, got ${JSON.stringify(text)}` };
  return { ok: true, ms };
}

/** A duration in the largest whole unit (`30d`, `72h`). */
export function formatRetainDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    if (ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  }
  return `${ms}ms`;
}

export interface RetentionOptions {
  store: DeliveryStore;
  retainMs: number;
  clock: () => number;
  intervalMs?: number;
  /** After each prune (whatever it removed). */
  onPrune?: (result: PruneResult) => void;
  onError?: (err: Error) => void;
}

export interface Retention {
  /** Prunes now (joins a prune already running). Null when the store cannot prune. */
  runNow(): Promise<PruneResult | null>;
  /** Stops the timer and waits for a prune in progress. */
  stop(): Promise<void>;
}

export function startRetention(options: RetentionOptions): Retention {
  const { store } = options;
  let running: Promise<PruneResult | null> | null = null;
  let stopped = false;
  const runNow = (): Promise<PruneResult | null> => {
    if (!store.prune || stopped) return Promise.resolve(null);
    running ??= store
      .prune(options.clock() - options.retainMs)
      .then((result) => {
        options.onPrune?.(result);
        return result;
      })
      .catch((err: unknown) => {
        options.onError?.(err as Error);
        return null;
      })
      .finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => void runNow(), options.intervalMs ?? RETENTION_INTERVAL_MS);
  timer.unref();
  void runNow();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
