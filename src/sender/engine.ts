/**
 * The delivery engine: drives deliveries through attempts, waits and the webhook's state
 * (spec 3, 6.3, 6.4) using the pure transitions of core/retry-policy. It never prints: it emits
 * typed events and returns the spec 2.11 records.
 */
import { setMaxListeners } from 'node:events';
import type { DeliveryEvent, DeliveryEventListener } from '../core/retry-policy/delivery-events.js';
import { closeAsInactive, createDelivery, type Delivery } from '../core/retry-policy/delivery-state.js';
import type { FailureHandling, RetryPolicy } from '../core/retry-policy/policy.js';
import {
  afterAttempt,
  afterDelivery,
  createWebhookState,
  type SuspendReason,
  type WebhookState,
} from '../core/retry-policy/webhook-state.js';
import { attemptOnce, type AttemptDeps, type SentAttempt } from './attempt-once.js';
import type { OutgoingDelivery } from './build-request.js';
import { createSlots } from './slots.js';

export interface SendRun {
  url: string;
  deliveries: readonly OutgoingDelivery[];
  /** The signing secret; null sends unsigned (spec 6.1: the header only when signing is on). */
  secret: string | null;
  policy: RetryPolicy;
  failureHandling: FailureHandling;
  webhookId: string;
  /** Attempts in flight at once; default 1. */
  concurrency?: number;
  /** Multiplies every wait between attempts (1 = real time). */
  timeScale?: number;
  onEvent?: DeliveryEventListener;
  /**
   * Aborting it (Ctrl-C) stops the run: no new attempt starts, waiting retries wake, and attempts
   * in flight finish and are recorded. Deliveries it stopped keep their state (pending or retrying).
   */
  signal?: AbortSignal;
}

export type SenderDeps = AttemptDeps;

export interface SendResult {
  deliveries: Delivery[];
  webhook: WebhookState;
  /** True when `signal` stopped the run before every delivery ended. */
  interrupted: boolean;
}

/**
 * Sends every delivery to `url` until each is succeeded or failed. Each attempt is signed
 * afresh with its own `t` (spec 6.3); the body bytes and x-service-delivery never change.
 * Resolves with the Delivery records in input order and the final webhook state; never rejects
 * for anything the endpoint does.
 */
export async function runDeliveries(run: SendRun, deps: SenderDeps): Promise<SendResult> {
  const { clock } = deps;
  const emit = (event: DeliveryEvent): void => {
    try {
      run.onEvent?.(event);
    } catch {
      /* a failing subscriber must not stop deliveries */
    }
  };
  const timeScale = run.timeScale ?? 1;
  const slots = createSlots(Math.max(1, Math.floor(run.concurrency ?? 1)));
  // Wakes every waiting delivery: the webhook was suspended, or the run was interrupted.
  const inactive = new AbortController();
  setMaxListeners(0, inactive.signal);
  let interrupted = false;
  const interrupt = (): void => {
    interrupted = true;
    inactive.abort();
  };
  if (run.signal?.aborted) interrupt();
  run.signal?.addEventListener('abort', interrupt, { once: true });
  let webhook = createWebhookState(run.webhookId);
  const records = run.deliveries.map((d) =>
    createDelivery({ id: d.id, webhookId: run.webhookId, trigger: d.trigger, apiVersion: d.apiVersion, payload: d.payload, createdAtMs: clock.now() }),
  );

  const suspend = (reason: SuspendReason | null, byDeliveryId: string): void => {
    if (reason === null) return;
    emit({ type: 'webhook_suspended', webhook, reason, byDeliveryId });
    // Spec 3: sends nothing more; every waiting delivery wakes and closes as webhook_inactive.
    inactive.abort();
  };

  const close = (index: number, delivery: Delivery): void => {
    records[index] = delivery;
    emit({ type: 'delivery_finished', index, delivery });
    const change = afterDelivery(webhook, delivery, run.failureHandling);
    webhook = change.webhook;
    suspend(change.suspended, delivery.id);
  };

  const deliverOne = async (index: number): Promise<void> => {
    const outgoing = run.deliveries[index]!;
    for (;;) {
      const slot = await slots.acquire(inactive.signal);
      if (interrupted) {
        // Stopped before this attempt: the record keeps its state (pending, or retrying).
        slot?.release();
        return;
      }
      if (slot === null || webhook.status !== 'active') {
        slot?.release();
        return close(index, closeAsInactive(records[index]!));
      }
      let finished: SentAttempt | null;
      try {
        finished = await attemptOnce(
          records[index]!,
          { url: run.url, outgoing, secret: run.secret, policy: run.policy, timeScale },
          deps,
          (started) => {
            records[index] = started.delivery;
            emit({ type: 'attempt_started', index, deliveryId: outgoing.id, attemptNumber: started.attemptNumber, startedAt: started.delivery.sentAt! });
          },
        );
      } finally {
        slot.release();
      }
      if (finished === null) return;
      records[index] = finished.delivery;
      emit({
        type: 'attempt_finished',
        index,
        deliveryId: outgoing.id,
        attempt: finished.delivery.attempts.at(-1)!,
        outcome: finished.outcome,
        decision: finished.decision,
        scaledWaitMs: finished.scaledWaitMs,
        delivery: finished.delivery,
        ...(finished.receiverCode === undefined ? {} : { receiverCode: finished.receiverCode }),
      });
      const change = afterAttempt(webhook, finished.outcome, run.failureHandling, clock.now());
      webhook = change.webhook;
      suspend(change.suspended, outgoing.id);
      if (finished.delivery.status !== 'retrying') return close(index, finished.delivery);
      if (webhook.status !== 'active') return close(index, closeAsInactive(finished.delivery));
      if (interrupted) return;
      await clock.sleep(finished.scaledWaitMs!, inactive.signal);
    }
  };

  try {
    await Promise.all(records.map((_, index) => deliverOne(index)));
  } finally {
    run.signal?.removeEventListener('abort', interrupt);
  }
  return { deliveries: records, webhook, interrupted: interrupted && records.some((d) => d.status === 'pending' || d.status === 'retrying') };
}
