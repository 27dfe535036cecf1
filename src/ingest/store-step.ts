/**
 * Store + dedupe, the pipeline's last step: the delivery and its attempt in one durable commit,
 * and a 2xx only after it. A store that cannot write gives 503 STORE_UNAVAILABLE, never a 2xx.
 *
 * And the attempt log, the one place that records an attempt and announces it (hub `attempt`),
 * which every refusal and fault of the pipeline records through too. The announced record is the
 * stored one, field for field (finishedAt included), so the live console and a reload agree. An
 * attempt that stores no delivery keeps what was sent (headers and raw body, bounded by the
 * receiver's --body-limit: a larger body is never read); the announcement leaves that out, as
 * every list of attempts does.
 */
import { errorEnvelopeText, successEnvelopeText } from '../core/error-envelope.js';
import type { EnvelopeCheck } from '../core/envelope.js';
import type { AttemptInput, AttemptOutcome, AttemptRecord, KeptRequest, NewDelivery } from '../core/records.js';
import type { PassthroughResult } from '../handoff/passthrough.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { OutboxPort } from '../runtime/outbox-port.js';
import { pairHeaders, StoreUnavailableError, type AcceptResult, type DeliveryLog } from '../store/store.js';
import { endStep, type ArrivalTrace } from '../telemetry/tracing.js';
import { type Arrival, jsonAnswer, type Outcome, type SignatureCheck } from './arrival.js';
import type { PassthroughStep } from './passthrough-step.js';

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

export interface AttemptLog {
  /**
   * Stores the delivery unless its id is stored already, with `attempt` as accepted or duplicate,
   * in one durable commit; then announces the attempt as stored. Rejects with the store's
   * StoreUnavailableError, announcing nothing (the caller records the 503 instead).
   */
  accept(delivery: NewDelivery, attempt: AttemptInput, requestId?: string): Promise<{ result: AcceptResult; recorded: AttemptRecord }>;
  /**
   * Records an attempt that stores no delivery (rejected, faulted, unavailable), with the request
   * of `arrival` (its headers, and its body when it was read), then announces it. A store that
   * cannot write is ignored here: the answer says what happened, nothing is acknowledged.
   */
  record(attempt: AttemptInput, requestId?: string, arrival?: Arrival): Promise<AttemptRecord>;
}

export interface AttemptLogOptions {
  store: DeliveryLog;
  hub: EventHub;
  /** Every record of a receiver with --skip-verify is flagged as unverified where it is shown. */
  skipVerify: boolean;
}

export function createAttemptLog({ store, hub, skipVerify }: AttemptLogOptions): AttemptLog {
  // seq is the stored row's (0 when the store could not write it): the console merges live attempts by it.
  const announce = (attempt: AttemptInput, outcome: AttemptOutcome, seq: number, requestId: string | undefined): AttemptRecord => {
    const recorded = recordOf(attempt, outcome, seq);
    hub.emit('attempt', { attempt: recorded, skipVerify, requestId });
    return recorded;
  };
  return {
    async accept(delivery, attempt, requestId) {
      const result = await store.accept(delivery, attempt);
      // The store decides accepted or duplicate and writes that outcome: announce the same.
      return { result, recorded: announce(attempt, result.outcome, result.attemptSeq, requestId) };
    },
    async record(attempt, requestId, arrival) {
      const seq = await store.recordAttempt(arrival ? { ...attempt, request: keptRequest(arrival) } : attempt).catch(() => {
        /* the store is down: the answer says so; nothing was acknowledged */
        return 0;
      });
      return announce(attempt, attempt.outcome, seq, requestId);
    },
  };
}

/**
 * The record as stored, less the kept request (which no announcement carries): one object of one
 * shape, built field by field. Spreads made three copies of it per attempt.
 */
function recordOf(a: AttemptInput, outcome: AttemptOutcome, seq: number): AttemptRecord {
  const recorded: AttemptRecord = {
    deliveryId: a.deliveryId, trigger: a.trigger, receivedAt: a.receivedAt, finishedAt: a.finishedAt, attemptHeader: a.attemptHeader,
    signatureTimestamp: a.signatureTimestamp, bodySha256: a.bodySha256, bodyBytes: a.bodyBytes, outcome, status: a.status, reason: a.reason,
    retryAfter: a.retryAfter, seq,
  };
  if (a.hints !== undefined) recorded.hints = a.hints;
  return recorded;
}

/**
 * The most of a refused or faulted arrival's body that is kept. Anyone can POST refused requests, so
 * a whole --body-limit each (1 MiB by default, for 30 days) would let a stranger fill the disk; the
 * first 64 KiB is what a user reads to see what went wrong. The attempt's bodyBytes and SHA-256 stay
 * those of the whole body, so a shorter kept body says it was cut.
 */
export const MAX_KEPT_REFUSED_BODY = 64 * 1024;

/** What an attempt keeps of its arrival: every header line as received, and the body (its first 64 KiB) unless it was never read. */
export function keptRequest(arrival: Arrival): KeptRequest {
  const body = arrival.unread ? null : arrival.rawBody.length > MAX_KEPT_REFUSED_BODY ? arrival.rawBody.subarray(0, MAX_KEPT_REFUSED_BODY) : arrival.rawBody;
  return { headers: pairHeaders(arrival.rawHeaders), body };
}
