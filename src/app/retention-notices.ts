/** `--retain`: prunes at start and hourly, and says what it pruned (or why it could not) on the hub. */
import type { EventHub } from '../runtime/event-hub.js';
import { formatRetainDuration, startRetention, type Retention } from '../store/retention.js';
import { bridgeRetentionFloor } from '../store/bridge-cursors.js';
import type { DeliveryStore } from '../store/store.js';

/** `bridgeRetainMs`: with a bridge, what a subscriber seen within it has not acknowledged is kept. */
export function startRetentionWithNotices(store: DeliveryStore, hub: EventHub, retainMs: number, clock: () => number, bridgeRetainMs?: number): Retention {
  const window = formatRetainDuration(retainMs);
  return startRetention({
    store,
    retainMs,
    clock,
    ...(bridgeRetainMs === undefined ? {} : { keepAfterSeq: async () => bridgeRetentionFloor(await store.bridgeCursors(), clock(), bridgeRetainMs) }),
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
