/** The Delivery and Attempt records of spec 2.11 and the delivery transitions of spec 3. */
import { classifyOutcome, type AttemptObservation, type AttemptOutcome } from './classify-outcome.js';
import { decideRetry, type RetryDecision } from './decide-retry.js';
import type { FailureClass, RetryPolicy } from './policy.js';
import type { RandomSource } from '../seeded-random.js';
import { isoTime } from '../iso-time.js';

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

/** lastFailureClass values: the attempt classes plus webhook_inactive (spec 2.11). */
export type DeliveryFailureClass = FailureClass | 'webhook_inactive';

/** One attempt as spec 2.11 records it. Times are RFC 3339 strings. */
export interface Attempt {
  attemptNumber: number;
  startedAt: string;
  finishedAt: string | null;
  responseStatus: number | null;
  failureClass: FailureClass | null;
  errorMessage: string | null;
  durationMs: number | null;
}

/** A delivery as spec 2.11 records it. The top-level result fields describe the latest attempt. */
export interface Delivery {
  id: string;
  webhookId: string;
  trigger: string;
  apiVersion: string;
  status: DeliveryStatus;
  payload: Record<string, unknown>;
  responseStatus: number | null;
  errorMessage: string | null;
  durationMs: number | null;
  /** When the latest attempt was sent. */
  sentAt: string | null;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastFailureClass: DeliveryFailureClass | null;
  attempts: Attempt[];
  isReplay: boolean;
  replayOfDeliveryId: string | null;
  createdAt: string | null;
}

export interface NewDeliveryInit {
  id: string;
  webhookId: string;
  trigger: string;
  apiVersion: string;
  payload: Record<string, unknown>;
  createdAtMs: number;
  isReplay?: boolean;
  replayOfDeliveryId?: string | null;
}


/** A new delivery in status `pending`, with no attempts. */
export function createDelivery(init: NewDeliveryInit): Delivery {
  return {
    id: init.id,
    webhookId: init.webhookId,
    trigger: init.trigger,
    apiVersion: init.apiVersion,
    status: 'pending',
    payload: init.payload,
    responseStatus: null,
    errorMessage: null,
    durationMs: null,
    sentAt: null,
    attemptCount: 0,
    nextAttemptAt: null,
    lastFailureClass: null,
    attempts: [],
    isReplay: init.isReplay ?? false,
    replayOfDeliveryId: init.replayOfDeliveryId ?? null,
    createdAt: isoTime(init.createdAtMs),
  };
}

/** True once the delivery is succeeded or failed (spec 3: both terminal). */
export function isClosed(delivery: Delivery): boolean {
  return delivery.status === 'succeeded' || delivery.status === 'failed';
}

/** True while an attempt has started and not finished. */
export function isInFlight(delivery: Delivery): boolean {
  const last = delivery.attempts.at(-1);
  return last !== undefined && last.finishedAt === null;
}

/**
 * Opens the next attempt at `nowMs`. Refuses (`closed`, `in_flight`) a delivery that is
 * terminal or already has an attempt open; otherwise returns the delivery and the number
 * the attempt carries in x-service-delivery-attempt (spec 6.1: 1, 2, ...).
 */
export function startAttempt(
  delivery: Delivery,
  nowMs: number,
): { ok: true; delivery: Delivery; attemptNumber: number } | { ok: false; reason: 'closed' | 'in_flight' } {
  if (isClosed(delivery)) return { ok: false, reason: 'closed' };
  if (isInFlight(delivery)) return { ok: false, reason: 'in_flight' };
  const attemptNumber = delivery.attemptCount + 1;
  const attempt: Attempt = {
    attemptNumber,
    startedAt: isoTime(nowMs),
    finishedAt: null,
    responseStatus: null,
    failureClass: null,
    errorMessage: null,
    durationMs: null,
  };
  return {
    ok: true,
    attemptNumber,
    delivery: { ...delivery, attempts: [...delivery.attempts, attempt], attemptCount: attemptNumber, sentAt: attempt.startedAt, nextAttemptAt: null },
  };
}

export interface FinishContext {
  policy: RetryPolicy;
  nowMs: number;
  random: RandomSource;
  /** Multiplies the wait to give nextAttemptAt in the caller's clock (1 = real time). */
  timeScale?: number;
}

export interface FinishedAttempt {
  delivery: Delivery;
  outcome: AttemptOutcome;
  decision: RetryDecision;
  /** The wait in the caller's clock (policy wait × timeScale); null unless retrying. */
  scaledWaitMs: number | null;
}

/**
 * Closes the open attempt with what was observed, judges it (spec 6.4) and moves the delivery
 * (spec 3): 2xx → succeeded; retryable with attempts left → retrying with nextAttemptAt;
 * otherwise → failed. Returns the delivery unchanged (decision `fail`) when no attempt is open.
 */
export function finishAttempt(delivery: Delivery, observation: AttemptObservation, ctx: FinishContext): FinishedAttempt {
  const outcome = classifyOutcome(observation);
  const open = delivery.attempts.at(-1);
  if (open === undefined || open.finishedAt !== null || isClosed(delivery)) {
    return { delivery, outcome, decision: { action: 'fail', why: 'never_retried' }, scaledWaitMs: null };
  }
  const decision = decideRetry(ctx.policy, outcome, open.attemptNumber, ctx.nowMs, ctx.random);
  const startedMs = Date.parse(open.startedAt);
  const durationMs = Math.max(0, Math.round(ctx.nowMs - startedMs));
  const attempt: Attempt = {
    ...open,
    finishedAt: isoTime(ctx.nowMs),
    responseStatus: outcome.responseStatus,
    failureClass: outcome.failureClass,
    errorMessage: outcome.errorMessage,
    durationMs,
  };
  const scaledWaitMs = decision.action === 'retry' ? decision.waitSeconds * 1000 * (ctx.timeScale ?? 1) : null;
  const status: DeliveryStatus = decision.action === 'succeed' ? 'succeeded' : decision.action === 'retry' ? 'retrying' : 'failed';
  return {
    outcome,
    decision,
    scaledWaitMs,
    delivery: {
      ...delivery,
      attempts: [...delivery.attempts.slice(0, -1), attempt],
      status,
      responseStatus: outcome.responseStatus,
      errorMessage: outcome.errorMessage,
      durationMs,
      nextAttemptAt: scaledWaitMs === null ? null : isoTime(ctx.nowMs + scaledWaitMs),
      lastFailureClass: outcome.failureClass ?? delivery.lastFailureClass,
    },
  };
}

/**
 * Spec 3: when the webhook is suspended or disabled, a waiting delivery (pending or retrying,
 * no attempt open) closes as failed with lastFailureClass webhook_inactive. Any other delivery
 * is returned unchanged.
 */
export function closeAsInactive(delivery: Delivery): Delivery {
  if (isClosed(delivery) || isInFlight(delivery)) return delivery;
  return { ...delivery, status: 'failed', nextAttemptAt: null, lastFailureClass: 'webhook_inactive', errorMessage: 'webhook inactive' };
}
