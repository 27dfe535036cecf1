/**
 * Spec 3: when a webhook is disabled or suspended, its waiting retries close as failed with
 * lastFailureClass webhook_inactive. An attempt in flight finishes first (the engine closes it
 * after, seeing the webhook inactive).
 */
import { closeAsInactive } from '../core/retry-policy/delivery-state.js';
import type { EmulatorContext } from './emulator-context.js';

/** Closes every waiting delivery of `webhookId`; returns how many. Call inside a transaction. */
export function closeWaiting(ctx: Pick<EmulatorContext, 'deliveries'>, webhookId: string): number {
  const waiting = ctx.deliveries.waitingOf(webhookId);
  for (const { delivery } of waiting) ctx.deliveries.save(closeAsInactive(delivery), null);
  return waiting.length;
}
