/**
 * The relay worker for `--forward-to` (async): built from the forward settings (routes and target
 * trust included). The pipeline hands it every delivery it stores through the outbox port
 * (`relayPort`), not through the observer hub; the hub only wakes it for deliveries another
 * instance stored (PostgreSQL), which it reads from the shared outbox. Loaded on first use.
 */
import type { ForwardConfig } from '../config/listen-config.js';
import type { RelayTargetsAdapter } from '../console/console-options.js';
import { NO_PACING, orderOfTargets } from '../core/pacing.js';
import { relayTargetList, type RelayTargets } from '../core/routes.js';
import { DEFAULT_RELAY_RETRY } from '../relay/relay-backoff.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { EventHub } from '../runtime/event-hub.js';
import { outboxPortOf, type OutboxPort } from '../runtime/outbox-port.js';
import type { DeliveryStore } from '../store/store.js';

export async function startRelayWorker(forward: ForwardConfig, store: DeliveryStore, hub: EventHub, clock: () => number): Promise<RelayWorker> {
  const worker = (await import('../relay/relay-worker.js')).createRelayWorker({
    store, hub, clock,
    target: forward.to,
    routes: forward.routes ?? [],
    ...(forward.pacing ? { pacing: forward.pacing } : {}),
    ...(forward.trust ? { trust: forward.trust } : {}),
    secret: forward.secret,
    timeoutMs: forward.timeoutMs,
    retry: { ...DEFAULT_RELAY_RETRY, maxTries: forward.maxTries },
    extraHeaders: forward.headers,
  });
  // Another instance's delivery (no body here): a hint to read the shared outbox sooner than the poll.
  hub.on('delivery', ({ rawBody }) => {
    if (!rawBody) worker.poke();
  });
  return worker;
}

/** Blocked keys the console lists, a target. */
const BLOCKED_KEYS_SHOWN = 20;

/** Where the store queues each job: the routes, the fallback, and which targets are ordered. */
export function outboxTargetsOf(forward: ForwardConfig): RelayTargets {
  const targets = { to: forward.to, routes: forward.routes ?? [] };
  const order = orderOfTargets(forward.pacing ?? NO_PACING, relayTargetList(targets));
  return Object.keys(order).length > 0 ? { ...targets, order } : targets;
}

/** The relay's targets as the console lists and pauses them. */
export function relayTargetsOf(worker: RelayWorker, store: Pick<DeliveryStore, 'blockedOrderKeys'>): RelayTargetsAdapter {
  return {
    list: () =>
      worker.targets().map(({ target, pace, paused, inFlight, waiting }) => ({
        target, concurrency: pace.concurrency, ratePerSecond: pace.ratePerSecond, burst: pace.burst, paused, inFlight, waiting,
        order: pace.order?.text ?? null, onDead: pace.order?.onDead ?? null,
      })),
    // Each ordered target's own: one target's many blocked keys never hide another's.
    blocked: async () => (await Promise.all(worker.targets().filter((t) => t.pace.order !== null).map((t) => store.blockedOrderKeys(t.target, BLOCKED_KEYS_SHOWN)))).flat(),
    setPaused: (target, paused) => worker.setPaused(target, paused),
  };
}

/** The outbox port of a relay: what the pipeline tells it (src/runtime/outbox-port.ts). */
export function relayPort(worker: RelayWorker, hub: EventHub): OutboxPort {
  // The job is committed with the delivery: a worker that cannot take it costs only the fast path.
  return outboxPortOf([{ stored: (delivery) => worker.offer(delivery) }], (err, delivery) =>
    hub.emit('notice', { level: 'error', message: `the relay was not told of delivery ${delivery.id} (${err instanceof Error ? err.message : String(err)}); its poll hands it on` }),
  );
}
