/**
 * `--forward-mode sync` in the pipeline: the app answers before the store, and only its 2xx makes
 * the delivery accepted. Copies of one id take turns (per-key-turns.ts), so copies that arrive
 * together cannot both see "not stored yet" and both reach the app.
 */
import type { Passthrough, PassthroughResult } from '../handoff/passthrough.js';
import { senderAnswerFor } from '../handoff/sender-answer.js';
import { displayUrl } from '../core/url-secrets.js';
import type { EventHub, HubEvents } from '../runtime/event-hub.js';
import { pairHeaders, type DeliveryStore } from '../store/store.js';
import type { Arrival } from './arrival.js';
import { createPerKeyTurns } from './per-key-turns.js';
import type { Rejection } from './rejection.js';

export type HandOn =
  /** The id is stored already: not handed on again (answered as a duplicate). */
  | { kind: 'skipped' }
  /** The app answered 2xx: the delivery may be accepted, answered with the app's status. */
  | { kind: 'handed-on'; handedOn: PassthroughResult }
  /** The app did not answer 2xx: the sender is refused with this. */
  | { kind: 'refused'; rejection: Rejection };

export interface PassthroughStep {
  /** Runs `task` in delivery id `id`'s turn: one at a time per id, in arrival order. */
  inTurn<T>(id: string, task: () => Promise<T>): Promise<T>;
  /** Hands the arrival to the app unless the id is stored already. */
  handOn(arrival: Arrival, id: string): Promise<HandOn>;
  /** After the commit: the hand-off joins the delivery's relay history, and is announced. */
  recordHandOff(deliveryId: string, deliverySeq: number, handedOn: PassthroughResult): void;
}

export function createPassthroughStep(passthrough: Passthrough, store: DeliveryStore, hub: EventHub): PassthroughStep {
  const turns = createPerKeyTurns();
  // A refused hand-off is announced when its turn ends, after the attempt it refused is recorded,
  // so the terminal shows the attempt and then the app's answer, as for an accepted one
  // (recordHandOff runs after the commit). Ids in a turn, with the announcement kept for its end.
  const unannounced = new Map<string, HubEvents['relay'] | null>();
  return {
    inTurn: (id, task) =>
      turns.run(id, async () => {
        unannounced.set(id, null);
        try {
          return await task();
        } finally {
          const relay = unannounced.get(id);
          unannounced.delete(id);
          if (relay) hub.emit('relay', relay);
        }
      }),
    async handOn(arrival, id) {
      if (await store.getDelivery(id)) return { kind: 'skipped' };
      const handedOn = await passthrough.forward({ id, rawBody: arrival.rawBody, headers: pairHeaders(arrival.rawHeaders), receivedAt: arrival.receivedAt });
      const { status, latencyMs, error } = handedOn.answer;
      if (status !== null && status >= 200 && status < 300) return { kind: 'handed-on', handedOn };
      const relay: HubEvents['relay'] = { deliveryId: id, status, ok: false, latencyMs: Math.round(latencyMs), replay: false, ...(error ? { error } : {}) };
      if (unannounced.has(id)) unannounced.set(id, relay);
      else hub.emit('relay', relay);
      return { kind: 'refused', rejection: senderAnswerFor(handedOn.answer) };
    },
    recordHandOff(deliveryId, deliverySeq, { answer, startedAt, finishedAt, target }) {
      store.recordRelay({ deliverySeq, startedAt, finishedAt, status: answer.status, error: null, replay: false, target: displayUrl(target), try: 1, answer: answer.reply ?? null, next: null }).catch(() => {});
      hub.emit('relay', { deliveryId, status: answer.status, ok: true, latencyMs: Math.round(answer.latencyMs), replay: false });
    },
  };
}
