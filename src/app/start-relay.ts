/**
 * The relay worker for `--forward-to` (async): built from the forward settings (routes and target
 * trust included), handed every stored delivery as it is stored. Loaded on first use.
 */
import type { ForwardConfig } from '../config/listen-config.js';
import { DEFAULT_RELAY_RETRY } from '../relay/relay-backoff.js';
import type { RelayWorker } from '../relay/relay-worker.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';

export async function startRelayWorker(forward: ForwardConfig, store: DeliveryStore, hub: EventHub, clock: () => number): Promise<RelayWorker> {
  const worker = (await import('../relay/relay-worker.js')).createRelayWorker({
    store, hub, clock,
    target: forward.to,
    routes: forward.routes ?? [],
    ...(forward.trust ? { trust: forward.trust } : {}),
    secret: forward.secret,
    timeoutMs: forward.timeoutMs,
    retry: { ...DEFAULT_RELAY_RETRY, maxTries: forward.maxTries },
    extraHeaders: forward.headers,
  });
  hub.on('delivery', ({ delivery, rawBody, rawHeaders }) => {
    if (rawBody && rawHeaders) worker.offer({ seq: delivery.seq, id: delivery.id, trigger: delivery.trigger, receivedAt: delivery.receivedAt, rawBody, rawHeaders });
    else worker.poke();
  });
  return worker;
}
