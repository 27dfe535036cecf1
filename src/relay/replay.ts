/** An explicit replay: a stored delivery re-sent freshly signed, marked, and recorded in its history. */
import type { Dispatcher } from 'undici';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore, StoredDelivery } from '../store/store.js';
import { createHandOff } from '../handoff/hand-off.js';
import { displayUrl } from '../core/url-secrets.js';

export interface ReplayResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** Where it went, its credentials redacted (core/url-secrets.ts). */
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

/**
 * Resolves null when no delivery has that id. `to` is a URL, or picks one for the delivery (the
 * target its trigger is routed to, when no URL was given).
 */
export async function replayDelivery(options: ReplayOptions, deliveryId: string, to: string | ((delivery: StoredDelivery) => string)): Promise<ReplayResult | null> {
  const { store, clock } = options;
  const delivery = await store.getDelivery(deliveryId);
  if (!delivery) return null;
  const target = typeof to === 'string' ? to : to(delivery);
  const history = await store.relayHistory(deliveryId);
  const replayTry = history.attempts.filter((a) => a.replay).length + 1;
  const handOff = createHandOff({ secret: options.secret, headers: options.extraHeaders, timeoutMs: options.timeoutMs }, options.dispatcher, clock);
  const { answer, startedAt, finishedAt } = await handOff.post(delivery, target, { relayTry: replayTry, replay: true });
  await store.recordRelay({ deliverySeq: delivery.seq, startedAt, finishedAt, status: answer.status, error: answer.error, replay: true, target: displayUrl(target), try: replayTry, answer: answer.reply ?? null, next: null });
  const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
  options.hub?.emit('relay', { deliveryId, status: answer.status, ok, latencyMs: Math.round(answer.latencyMs), replay: true, ...(answer.error ? { error: answer.error } : {}) });
  return { ok, status: answer.status, error: answer.error, target: displayUrl(target), latencyMs: answer.latencyMs };
}
