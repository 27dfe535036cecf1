/** An explicit replay: a stored delivery re-sent freshly signed, marked, and recorded in its history. */
import type { Dispatcher } from 'undici';
import type { EventHub } from '../app/event-hub.js';
import type { DeliveryStore } from '../store/store.js';
import { buildForwardRequest } from './forward-request.js';
import { postToTarget } from './post-to-target.js';

export interface ReplayResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  target: string;
  latencyMs: number;
}

export interface ReplayOptions {
  store: DeliveryStore;
  hub?: EventHub;
  dispatcher: Dispatcher;
  secret: string;
  timeoutMs: number;
  extraHeaders: ReadonlyArray<[string, string]>;
  clock: () => number;
}

/** Resolves null when no delivery has that id. */
export async function replayDelivery(options: ReplayOptions, deliveryId: string, target: string): Promise<ReplayResult | null> {
  const { store, clock } = options;
  const delivery = await store.getDelivery(deliveryId);
  if (!delivery) return null;
  const history = await store.relayHistory(deliveryId);
  const replayTry = history.attempts.filter((a) => a.replay).length + 1;
  const startedAt = clock();
  const request = buildForwardRequest({ delivery, secret: options.secret, nowSeconds: startedAt / 1000, relayTry: replayTry, replay: true, extraHeaders: options.extraHeaders });
  const answer = await postToTarget(options.dispatcher, target, request.headers, request.body, options.timeoutMs);
  const finishedAt = clock();
  await store.recordRelay({ deliverySeq: delivery.seq, startedAt, finishedAt, status: answer.status, error: answer.error, replay: true, target, try: replayTry, next: null });
  const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
  options.hub?.emit('relay', { deliveryId, status: answer.status, ok, latencyMs: Math.round(answer.latencyMs), replay: true, ...(answer.error ? { error: answer.error } : {}) });
  return { ok, status: answer.status, error: answer.error, target, latencyMs: answer.latencyMs };
}
