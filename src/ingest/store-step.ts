/**
 * Store + dedupe, the pipeline's last step: the delivery and its attempt in one durable commit,
 * and a 2xx only after it. A store that cannot write gives 503 STORE_UNAVAILABLE, never a 2xx.
 */
import type { EnvelopeCheck } from '../core/envelope.js';
import type { AttemptInput } from '../core/records.js';
import type { PassthroughResult } from '../handoff/passthrough.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { OutboxPort } from '../runtime/outbox-port.js';
import { StoreUnavailableError } from '../store/store.js';
import { endStep, type ArrivalTrace } from '../telemetry/tracing.js';
import type { Arrival } from './arrival.js';
import type { AttemptLog } from './attempt-log.js';
import { errorEnvelopeText, successEnvelopeText } from '../core/error-envelope.js';
import { jsonAnswer, type Outcome } from './outcome.js';
import type { PassthroughStep } from './passthrough-step.js';
import type { SignatureCheck } from './request-verdict.js';

export interface StoreStepContext {
  arrival: Arrival;
  checked: Extract<EnvelopeCheck, { ok: true }>;
  signature: Extract<SignatureCheck, { ok: true }>;
  /** The attempt as decided (outcome accepted): the store makes it a duplicate when the id is stored. */
  attempt: AttemptInput;
  /** The app's 2xx in sync mode: answered to the sender, and recorded in the relay history. */
  handedOn: PassthroughResult | null;
  /** The arrival's span, when tracing is on: the commit is its child. */
  trace?: ArrivalTrace | null;
}

export interface StoreStepOptions {
  log: AttemptLog;
  hub: EventHub;
  clock: () => number;
  skipVerify: boolean;
  passthrough: PassthroughStep | null;
  /**
   * Durable work (the relay), told of each stored delivery; absent when nothing consumes the outbox
   * here. A port of outboxPortOf: it reports a consumer that throws, and never throws itself.
   */
  outbox?: OutboxPort | null;
}

export function createStoreStep(options: StoreStepOptions): (ctx: StoreStepContext) => Promise<Outcome> {
  const { log, hub, clock, skipVerify } = options;
  const localState = skipVerify ? 'skipped' : 'valid';

  return async function store({ arrival, checked, signature, attempt, handedOn, trace }) {
    const { envelope, apiVersionKnown } = checked;
    const signatureState = signature.state ?? localState;
    const delivery = {
      id: envelope.id,
      trigger: envelope.type,
      apiVersion: envelope.apiVersion,
      apiVersionKnown,
      receivedAt: arrival.receivedAt,
      rawBody: arrival.rawBody,
      rawHeaders: arrival.rawHeaders,
      signature: signatureState,
      secretIndex: signature.secretIndex,
      signatureTimestamp: signature.timestamp,
    } as const;
    const committing = trace?.step('commit');
    try {
      const { result, recorded } = await log.accept(delivery, attempt, arrival.requestId);
      if (committing) endStep(committing, result.outcome === 'duplicate' ? 'duplicate' : 'stored');
      const now = clock();
      if (handedOn) void options.passthrough?.recordHandOff(envelope.id, result.deliverySeq, handedOn);
      const duplicate = result.outcome === 'duplicate';
      // Before the relay is told: its first try hangs under this arrival.
      if (!duplicate) trace?.stored(envelope.id);
      // Durable work first, through its own port; observers after, through the hub.
      if (!duplicate && options.outbox) options.outbox.stored({ seq: result.deliverySeq, id: envelope.id, trigger: envelope.type, receivedAt: arrival.receivedAt, rawBody: arrival.rawBody, rawHeaders: arrival.rawHeaders });
      if (!duplicate && hub.listens('delivery')) {
        hub.emit('delivery', {
          delivery: {
            seq: result.deliverySeq, id: envelope.id, trigger: envelope.type, apiVersion: envelope.apiVersion,
            apiVersionKnown, receivedAt: arrival.receivedAt, headers: [],
            signature: signatureState, secretIndex: signature.secretIndex, signatureTimestamp: signature.timestamp,
            duplicateCount: 0, lastAttemptAt: arrival.receivedAt, bodyBytes: arrival.rawBody.length,
          },
          rawBody: arrival.rawBody,
          rawHeaders: arrival.rawHeaders,
        });
      }
      // In sync mode the sender gets the app's own 2xx (no body where the status forbids one).
      const status = attempt.status ?? 200;
      // A bridged delivery's answer goes to no sender: only its status is read (the client acknowledges a 2xx).
      const action =
        status === 204 || status === 205 || arrival.source === 'bridge'
          ? { kind: 'answer' as const, status, body: null }
          : jsonAnswer(status, successEnvelopeText(apiVersionKnown ? { deliveryId: envelope.id, duplicate } : { deliveryId: envelope.id, duplicate, apiVersionUnknown: envelope.apiVersion }, now));
      return { action, recorded: Promise.resolve(recorded) };
    } catch (err) {
      if (committing) endStep(committing, err instanceof StoreUnavailableError ? 'unavailable' : 'error');
      if (!(err instanceof StoreUnavailableError)) throw err;
      const now = clock();
      // Not awaited: recording into the store that just failed would hold the 503 back until the
      // write times out, past the sender's 10 s attempt timeout.
      const recorded = log.record({ ...attempt, finishedAt: now, outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' }, arrival.requestId, arrival);
      return { action: jsonAnswer(503, errorEnvelopeText('STORE_UNAVAILABLE', 'the delivery could not be stored; nothing was acknowledged — retry later', now), 'STORE_UNAVAILABLE'), recorded };
    }
  };
}
