/** `--retain`: prunes at start and hourly, and says what it pruned (or why it could not) on the hub. */
import type { EventHub } from '../runtime/event-hub.js';
import { formatRetainDuration, startRetention, type Retention } from '../store/retention.js';
import { bridgeRetentionFloor } from '../store/bridge-cursors.js';
import { lagNotice, laggingSubscribers } from '../bridge/lagging-subscribers.js';
import type { DeliveryStore } from '../store/store.js';

/** A known subscriber this many deliveries behind is named on the terminal at each retention run. */
export const BRIDGE_LAG_WARNING = 1000;

/**
 * `bridgeRetainMs`: with a bridge, what a subscriber seen within it has not acknowledged is kept,
 * and each run (at start, then hourly) warns about every subscriber `lagWarning` or more behind.
 */
export function startRetentionWithNotices(store: DeliveryStore, hub: EventHub, retainMs: number, clock: () => number, bridgeRetainMs?: number, lagWarning = BRIDGE_LAG_WARNING): Retention {
  const window = formatRetainDuration(retainMs);
  const keepAfterSeq = async (bridgeRetain: number) => {
    const [cursors, latest] = await Promise.all([store.bridgeCursors(), store.latestDeliverySeq()]);
    const now = clock();
    for (const lagging of laggingSubscribers(cursors, latest, now, { minLag: lagWarning, retainMs: bridgeRetain })) hub.emit('notice', { level: 'warn', message: lagNotice(lagging, bridgeRetain) });
    return bridgeRetentionFloor(cursors, now, bridgeRetain);
  };
  return startRetention({
    store,
    retainMs,
    clock,
    ...(bridgeRetainMs === undefined ? {} : { keepAfterSeq: () => keepAfterSeq(bridgeRetainMs) }),
    onPrune: (r) => {
      if (r.deliveries + r.attempts === 0) return;
      hub.emit('notice', {
        level: 'info',
        message: `retention (${window}): pruned ${r.deliveries} deliveries, ${r.attempts} attempts and ${r.relayAttempts} relay tries last seen before ${new Date(r.before).toISOString()}${r.keptPending ? `; kept ${r.keptPending} whose relay is pending` : ''}`,
      });
    },
    onError: (err) => hub.emit('notice', { level: 'warn', message: `retention: cannot prune: ${err.message}` }),
  });
}
