/**
 * `--forward-mode sync` in the pipeline: the app answers before the store, and only its 2xx makes
 * the delivery accepted. Copies of one id take turns (per-key-turns.ts), so copies that arrive
 * together cannot both see "not stored yet" and both reach the app.
 *
 * Only the hand-off that lets a delivery in is a relay try: once the delivery is stored, it joins
 * its relay history through the relay log. A refused hand-off stores nothing to hang a try on: it
 * is the answer to the sender's attempt, recorded and announced as that attempt (its reason a
 * TARGET_* code, what went wrong in its hints), which is what the console and `events show` read back.
 */
import type { Passthrough, PassthroughResult } from '../handoff/passthrough.js';
import { targetTook } from '../handoff/hand-off.js';
import { createRelayLog } from '../handoff/relay-log.js';
import { senderAnswerFor } from '../handoff/sender-answer.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { TraceParent } from '../telemetry/tracing.js';
import { pairHeaders, type DeliveryStore } from '../store/store.js';
import type { Arrival, Rejection } from './arrival.js';
import { createPerKeyTurns } from './per-key-turns.js';

export type HandOn =
  /** The id is stored already: not handed on again (answered as a duplicate). */
  | { kind: 'skipped' }
  /** The app answered 2xx: the delivery may be accepted, answered with the app's status. */
  | { kind: 'handed-on'; handedOn: PassthroughResult }
  /**
   * The app did not answer 2xx: the sender is refused with this. `hints`, for the attempt's record:
   * why no answer came (a timeout, a refused connection, an untrusted certificate and what to pass).
   */
  | { kind: 'refused'; rejection: Rejection; hints: string[] };

export interface PassthroughStep {
  /** Runs `task` in delivery id `id`'s turn: one at a time per id, in arrival order. */
  inTurn<T>(id: string, task: () => Promise<T>): Promise<T>;
  /** Hands the arrival to the app unless the id is stored already; the try's span under `parent` (the arrival's) when tracing. */
  handOn(arrival: Arrival, id: string, parent?: TraceParent): Promise<HandOn>;
  /**
   * After the commit: the hand-off joins the delivery's relay history as its first try, then is
   * announced. Resolves when done; never rejects (the sender has its answer: a history the store
   * cannot write is dropped, and not announced).
   */
  recordHandOff(deliveryId: string, deliverySeq: number, handedOn: PassthroughResult): Promise<void>;
}

export function createPassthroughStep(passthrough: Passthrough, store: DeliveryStore, hub: EventHub): PassthroughStep {
  const turns = createPerKeyTurns();
  const relayLog = createRelayLog(store, hub);
  return {
    inTurn: (id, task) => turns.run(id, task),
    async handOn(arrival, id, parent) {
      if (await store.getDelivery(id)) return { kind: 'skipped' };
      const handedOn = await passthrough.forward({ id, rawBody: arrival.rawBody, headers: pairHeaders(arrival.rawHeaders), receivedAt: arrival.receivedAt }, parent);
      if (targetTook(handedOn.answer)) return { kind: 'handed-on', handedOn };
      const { status, error } = handedOn.answer;
      return { kind: 'refused', rejection: senderAnswerFor(handedOn.answer), hints: status === null && error ? [error] : [] };
    },
    recordHandOff: (deliveryId, deliverySeq, handedOff) =>
      relayLog.record({ deliveryId, deliverySeq, try: 1, replay: false, handedOff, next: null }).catch(() => {}),
  };
}
