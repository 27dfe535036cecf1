/**
 * The one place that records an attempt and announces it (hub `attempt`). The announced record is
 * the stored one, field for field (finishedAt included), so the live console and a reload agree.
 * An attempt that stores no delivery keeps what was sent (headers and raw body, bounded by the
 * receiver's --body-limit: a larger body is never read); the announcement leaves that out, as
 * every list of attempts does.
 */
import type { AttemptInput, AttemptOutcome, AttemptRecord, KeptRequest, NewDelivery } from '../core/records.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { AcceptResult, DeliveryLog } from '../store/store.js';
import { pairHeaders } from '../store/store.js';
import type { Arrival } from './arrival.js';

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
