/**
 * Waits, from another process, for a delivery that a running `listen` stores: reads the store
 * forward from a cursor, woken by the caller's signal (PostgreSQL LISTEN/NOTIFY) or, where there is
 * none (SQLite, a read-only connection beside the writer), by a poll. Resolves with the first
 * matching delivery, or null at the deadline.
 */
import type { StoreReader } from '../store/open-store.js';
import type { StoredDelivery } from '../store/store.js';

export interface WatchOptions {
  reader: Pick<StoreReader, 'deliveriesAfter' | 'listDeliveries' | 'latestDeliverySeq'>;
  matches: (delivery: StoredDelivery) => boolean;
  /** Trigger globs the store filters on (a cheaper read); the full filter is `matches`. */
  triggers?: readonly string[];
  /** Only deliveries received at or after this (ms since the epoch); null: only those stored after the watch starts. */
  sinceMs: number | null;
  /** Resolves null at this time (ms since the epoch, on `clock`). */
  deadline: number;
  clock: () => number;
  /** Subscribes to "something was stored"; returns an unsubscribe. Absent: poll only. */
  wake?: (listener: () => void) => () => void;
  /** Between reads when nothing woke the watch (default 200 ms; a safety net when `wake` is given). */
  pollMs?: number;
  /**
   * Re-read this many seqs below the cursor each time: on PostgreSQL a lower seq can become visible
   * after a higher one (two instances committing), and must not be skipped (default 0).
   */
  lagSeqs?: number;
  /** Called once the starting point is read: from then on, nothing stored is missed. */
  onReady?: () => void;
}

const PAGE = 500;
/** When reading back for --since: deliveries may be stored a little out of received order. */
const SINCE_SLACK_MS = 60_000;

export async function watchForDelivery(options: WatchOptions): Promise<StoredDelivery | null> {
  const { reader, matches, sinceMs, clock, deadline } = options;
  const lag = options.lagSeqs ?? 0;
  let cursor = sinceMs === null ? await reader.latestDeliverySeq() : await seqBefore(reader, sinceMs);
  const floor = sinceMs === null ? cursor : 0;
  const checked = new Set<number>();
  options.onReady?.();

  let wakeUp: (() => void) | null = null;
  const unsubscribe = options.wake?.(() => wakeUp?.());
  try {
    for (;;) {
      let full = true;
      while (full) {
        const from = Math.max(floor, cursor - lag);
        const page = await reader.deliveriesAfter(from, PAGE, options.triggers);
        full = page.length === PAGE && page.some((d) => !checked.has(d.seq));
        for (const delivery of page) {
          if (checked.has(delivery.seq)) continue;
          if (lag > 0) checked.add(delivery.seq);
          cursor = Math.max(cursor, delivery.seq);
          if (sinceMs !== null && delivery.receivedAt < sinceMs) continue;
          if (matches(delivery)) return delivery;
        }
        if (lag > 0) for (const seq of checked) if (seq <= cursor - lag) checked.delete(seq);
      }
      const left = deadline - clock();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, options.pollMs ?? 200));
        function done() {
          clearTimeout(timer);
          wakeUp = null;
          resolve();
        }
        wakeUp = done;
      });
    }
  } finally {
    unsubscribe?.();
  }
}

/** A seq below every delivery received at or after `sinceMs`: read newest first until older ones show. */
async function seqBefore(reader: WatchOptions['reader'], sinceMs: number): Promise<number> {
  let before: number | undefined;
  for (;;) {
    const page = await reader.listDeliveries({ limit: PAGE, before });
    for (const delivery of page.items) {
      if (delivery.receivedAt < sinceMs - SINCE_SLACK_MS) return delivery.seq;
    }
    if (page.nextCursor === null) return 0;
    before = page.nextCursor;
  }
}
