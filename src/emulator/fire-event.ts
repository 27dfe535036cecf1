/**
 * The emulator-only control surface (outside the spec): an event of one trigger for one
 * organization becomes one delivery per active webhook subscribed to it (spec 6), due now. Also
 * replay: a new delivery of a stored one's event, marked isReplay (spec 2.11, 4.4).
 */
import { randomUUID } from 'node:crypto';
import type { TriggerName } from '../core/envelope.js';
import { checkEventData } from '../core/emulator/event-data.js';
import type { Delivery } from '../core/retry-policy/delivery-state.js';
import { sampleData, isKnownTrigger } from '../core/triggers.js';
import type { RandomSource } from '../core/seeded-random.js';
import { ApiError, validationError } from './api-error.js';
import type { EmulatorContext } from './emulator-context.js';
import { enqueue, type FiredDelivery } from './emit-event.js';
import { getWebhook } from './webhook-service.js';
import { createPendingRequest, detectViolation } from './trust-center.js';

const FIRE_FIELDS = ['type', 'data', 'count'];
export const MAX_FIRE_COUNT = 1000;

export type { FiredDelivery } from './emit-event.js';

/** POST /v1/_emulator/events `{type, data?, count?}`: returns the deliveries it created (none when nothing subscribes). */
export function fireEvent(ctx: EmulatorContext, organizationId: string, body: unknown, random: RandomSource): { type: string; deliveries: FiredDelivery[]; recordIds?: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: 'body', message: 'must be a JSON object {type, data?, count?}' }]);
  const input = body as Record<string, unknown>;
  const problems = Object.keys(input).filter((k) => !FIRE_FIELDS.includes(k)).map((k) => ({ field: k.slice(0, 64), message: `is not a recognised field (known: ${FIRE_FIELDS.join(', ')})` }));
  const type = input.type;
  if (typeof type !== 'string' || !isKnownTrigger(type)) problems.push({ field: 'type', message: 'must be a trigger of the catalogue (GET /webhooks/triggers)' });
  const count = input.count ?? 1;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_FIRE_COUNT) problems.push({ field: 'count', message: `must be an integer from 1 to ${MAX_FIRE_COUNT}` });
  if (problems.length > 0) throw validationError(problems);
  const trigger = type as TriggerName;
  // Events from state changes: with no `data`, these triggers make the record their ids point at.
  if (input.data === undefined && (trigger === 'trustcenter.access_requested' || trigger === 'sod.violation_detected')) {
    const out: FiredDelivery[] = [];
    const records: string[] = [];
    for (let i = 0; i < (count as number); i++) {
      const made = trigger === 'sod.violation_detected' ? detectViolation(ctx, organizationId) : createPendingRequest(ctx, organizationId, i + 1);
      out.push(...made.deliveries);
      records.push('request' in made ? made.request.id : made.violation.id);
    }
    ctx.wake();
    return { type: trigger, deliveries: out, recordIds: records };
  }
  const nowMs = ctx.now();
  const events: Array<Record<string, unknown>> = [];
  for (let i = 0; i < (count as number); i++) {
    const sample = sampleData(trigger, { random, now: () => nowMs, uuid: randomUUID }) as Record<string, unknown>;
    const data = checkEventData(trigger, input.data, sample);
    if (!data.ok) throw validationError(data.problems);
    events.push(data.value);
  }
  const fired = ctx.db.transaction(() => {
    const out: FiredDelivery[] = [];
    const subscribers = ctx.webhooks.subscribers(organizationId, trigger);
    for (const data of events) {
      for (const webhook of subscribers) {
        const delivery = enqueue(ctx, webhook.id, organizationId, trigger, data, nowMs, null);
        out.push({ deliveryId: delivery.id, webhookId: webhook.id });
      }
    }
    return out;
  })();
  ctx.wake();
  return { type: trigger, deliveries: fired };
}

/** POST /webhooks/{id}/deliveries/{deliveryId}/replay: a new delivery with isReplay and replayOfDeliveryId. */
export function replayDelivery(ctx: EmulatorContext, organizationId: string, webhookId: string, deliveryId: string, body: unknown): Delivery {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0)) {
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : ['body'];
    throw validationError(fields.map((f) => ({ field: f.slice(0, 64), message: 'is not a recognised field (replay takes no body)' })));
  }
  const webhook = getWebhook(ctx, organizationId, webhookId);
  const original = ctx.deliveries.get(deliveryId);
  if (original === null || original.delivery.webhookId !== webhookId) throw new ApiError(404, 'NOT_FOUND', 'no delivery with this id on this webhook');
  if (webhook.status !== 'active') {
    throw new ApiError(409, 'WEBHOOK_INACTIVE', `the webhook is ${webhook.status} and sends nothing; PATCH it to status "active" first`);
  }
  const payload = original.delivery.payload as { data?: Record<string, unknown> };
  const delivery = ctx.db.transaction(() => enqueue(ctx, webhookId, organizationId, original.delivery.trigger, payload.data ?? {}, ctx.now(), original.delivery.id))();
  ctx.wake();
  return delivery;
}
