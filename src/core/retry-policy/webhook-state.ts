/** The webhook's automatic transitions of spec 3: active → suspended, and its failure bookkeeping. */
import type { AttemptOutcome } from './classify-outcome.js';
import type { Delivery } from './delivery-state.js';
import type { FailureHandling } from './policy.js';
import { isoTime } from '../iso-time.js';

export type WebhookStatus = 'active' | 'disabled' | 'suspended';

export type SuspendReason = 'endpoint_gone' | 'consecutive_failures';

/** The state fields of the Webhook record (spec 2.11) that delivery moves. */
export interface WebhookState {
  id: string;
  status: WebhookStatus;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  disabledReason: string | null;
}

export interface WebhookChange {
  webhook: WebhookState;
  /** Set when this step moved the webhook from active to suspended. */
  suspended: SuspendReason | null;
}


/** A webhook as created: active, with no failures counted. */
export function createWebhookState(id: string): WebhookState {
  return { id, status: 'active', consecutiveFailures: 0, lastSuccessAt: null, lastFailureAt: null, disabledReason: null };
}

/**
 * After each attempt: stamps lastSuccessAt / lastFailureAt, and suspends an active webhook at
 * once on 410 when disableOnGone is true (spec 3, 6.4). Counting waits for the delivery to close.
 */
export function afterAttempt(webhook: WebhookState, outcome: AttemptOutcome, handling: FailureHandling, nowMs: number): WebhookChange {
  if (outcome.delivered) return { webhook: { ...webhook, lastSuccessAt: isoTime(nowMs) }, suspended: null };
  const next = { ...webhook, lastFailureAt: isoTime(nowMs) };
  if (outcome.failureClass === 'http_410' && handling.disableOnGone && next.status === 'active') {
    return { webhook: { ...next, status: 'suspended', disabledReason: 'endpoint answered 410 Gone' }, suspended: 'endpoint_gone' };
  }
  return { webhook: next, suspended: null };
}

/**
 * After a delivery closes (spec 3): a success resets consecutiveFailures; a failure counts once
 * however many attempts it took, and suspends an active webhook when the count reaches
 * autoDisableAfter. A delivery closed as webhook_inactive is a consequence, not a failure, and
 * does not count. Deliveries still open leave the webhook unchanged.
 */
export function afterDelivery(webhook: WebhookState, delivery: Delivery, handling: FailureHandling): WebhookChange {
  if (delivery.status === 'succeeded') return { webhook: { ...webhook, consecutiveFailures: 0 }, suspended: null };
  if (delivery.status !== 'failed' || delivery.lastFailureClass === 'webhook_inactive') return { webhook, suspended: null };
  const consecutiveFailures = webhook.consecutiveFailures + 1;
  if (webhook.status === 'active' && consecutiveFailures >= handling.autoDisableAfter) {
    return {
      webhook: { ...webhook, consecutiveFailures, status: 'suspended', disabledReason: `${consecutiveFailures} consecutive failed deliveries` },
      suspended: 'consecutive_failures',
    };
  }
  return { webhook: { ...webhook, consecutiveFailures }, suspended: null };
}
