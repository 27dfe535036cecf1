/**
 * Retention: `listen --retain` prunes through the store at start and then every hour. The store
 * never removes a delivery whose relay is pending, and keeps everything last seen within the
 * window, so dedupe holds for any retry inside it (spec 6.4 retries span hours; the default
 * window is 30 days).
 */
import { formatDurationText, parseDuration } from '../core/duration.js';
import type { Housekeeping, PruneResult } from './store.js';

export const DEFAULT_RETAIN = '30d';
export const RETENTION_INTERVAL_MS = 3_600_000;

/**
 * Parses a duration such as `30d`, `72h`, `90m`, `3600s` or `2w` into milliseconds (the grammar of
 * core/duration.ts, in whole units, at least a minute); `0` and `off` mean no retention (null).
 * Refuses anything else with a message naming the forms.
 */
export function parseRetainDuration(text: string): { ok: true; ms: number | null } | { ok: false; message: string } {
  const value = text.trim().toLowerCase();
  if (value === '0' || value === 'off') return { ok: true, ms: null };
  const parsed = parseDuration(value, { whole: true, min: 60_000 });
  if (parsed.ok) return { ok: true, ms: parsed.ms };
  if (parsed.reason === 'too_short') return { ok: false, message: `must be at least one minute, got ${JSON.stringify(text)}` };
  return { ok: false, message: `must be a duration such as 30d, 72h, 90m or 3600s (or 0/off to keep everything), got ${JSON.stringify(text)}` };
}

/** A duration in the largest whole unit (`30d`, `72h`). */
export const formatRetainDuration = formatDurationText;

export interface RetentionOptions {
  store: Pick<Housekeeping, 'prune'>;
  retainMs: number;
  clock: () => number;
  intervalMs?: number;
  /** Deliveries after this seq are kept (the bridge: what a known subscriber has not acknowledged). */
  keepAfterSeq?: () => Promise<number | undefined>;
  /** After each prune (whatever it removed). */
  onPrune?: (result: PruneResult) => void;
  onError?: (err: Error) => void;
}

export interface Retention {
  /** Prunes now (joins a prune already running). Null when the store cannot prune. */
  runNow(): Promise<PruneResult | null>;
  /** Stops the timer and a prune in progress (between two of its transactions), and waits for it. */
  stop(): Promise<void>;
}

export function startRetention(options: RetentionOptions): Retention {
  const { store } = options;
  let running: Promise<PruneResult | null> | null = null;
  let stopped = false;
  // A stop does not wait for a long prune: it ends between two of its transactions.
  const stopping = new AbortController();
  const runNow = (): Promise<PruneResult | null> => {
    if (!store.prune || stopped) return Promise.resolve(null);
    running ??= (options.keepAfterSeq ? options.keepAfterSeq() : Promise.resolve(undefined))
      .then((keepAfterSeq) => store.prune(options.clock() - options.retainMs, { signal: stopping.signal, ...(keepAfterSeq === undefined ? {} : { keepAfterSeq }) }))
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
      stopping.abort();
      await running;
    },
  };
}
