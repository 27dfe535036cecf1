/**
 * One event of a trigger for an organization becomes one delivery per active webhook subscribed to
 * it (spec 6), due now: the one enqueue of `fire`, replay and the Trust Center's state changes.
 */
import { randomUUID } from 'node:crypto';
import type { TriggerName } from '../core/envelope.js';
import { createDelivery, type Delivery } from '../core/retry-policy/delivery-state.js';
import { buildDelivery } from '../sender/build-request.js';
import type { EmulatorContext } from './emulator-context.js';

export interface FiredDelivery {
  deliveryId: string;
  webhookId: string;
}

/** One event of `trigger` for an organization: a delivery per active subscribed webhook. Call inside a transaction, then ctx.wake(). */
export function emitEvent(ctx: EmulatorContext, organizationId: string, trigger: TriggerName, data: Record<string, unknown>): FiredDelivery[] {
  const nowMs = ctx.now();
  const out: FiredDelivery[] = [];
  for (const webhook of ctx.webhooks.subscribers(organizationId, trigger)) {
    out.push({ deliveryId: enqueue(ctx, webhook.id, organizationId, trigger, data, nowMs, null).id, webhookId: webhook.id });
  }
  return out;
}

export function enqueue(ctx: EmulatorContext, webhookId: string, organizationId: string, trigger: string, data: Record<string, unknown>, nowMs: number, replayOf: string | null): Delivery {
  const id = randomUUID();
  // Spec 6.1: the body is serialised once; every attempt sends these bytes.
  const outgoing = buildDelivery({ id, trigger, organizationId, createdAtMs: nowMs, data });
  const delivery = createDelivery({
    id,
    webhookId,
    trigger,
    apiVersion: outgoing.apiVersion,
    payload: outgoing.payload,
    createdAtMs: nowMs,
    isReplay: replayOf !== null,
    replayOfDeliveryId: replayOf,
  });
  ctx.deliveries.insert(delivery, outgoing.body, nowMs);
  return delivery;
}
