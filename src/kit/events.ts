/**
 * Typed events: the delivery envelope (spec 6.1) as a union over the seven triggers of spec 6.2,
 * with the data of the four the spec shows. A trigger added later (spec 9.2: `/v1` is additive)
 * stays the generic envelope, so code written today still compiles and runs when it arrives.
 */
import type { DeliveryEnvelope, TriggerName, TriggerPayloads } from '../core/envelope.js';
import { isKnownTrigger } from '../core/triggers.js';

export type { AccessChannel, DecidedBy, DeliveryEnvelope, TriggerName, TriggerPayloads } from '../core/envelope.js';

/** The event of one known trigger: `EventOf<'trustcenter.access_approved'>['data']['decidedBy']`. */
export type EventOf<T extends TriggerName> = DeliveryEnvelope<T> & { type: T; data: TriggerPayloads[T] };

/** One of the seven triggers of spec 6.2, discriminated on `type`. */
export type KnownEvent = { [T in TriggerName]: EventOf<T> }[TriggerName];

/** A trigger this version does not know (spec 9.2): the generic envelope, `data` an open object. */
export type UnknownEvent = DeliveryEnvelope<string>;

/** What a verified delivery carries: a known trigger's event, or the generic envelope. */
export type WebhookEvent = KnownEvent | UnknownEvent;

/**
 * Whether `event` is of trigger `type`; narrows it, data included:
 * `if (isEvent(e, 'trustcenter.access_approved')) e.data.visitorTokenId`.
 */
export function isEvent<T extends TriggerName>(event: WebhookEvent | null | undefined, type: T): event is EventOf<T> {
  return typeof event === 'object' && event !== null && event.type === type;
}

/** Whether `event` is one of the seven triggers this version knows; a `switch (event.type)` then narrows. */
export function isKnownEvent(event: WebhookEvent | null | undefined): event is KnownEvent {
  return typeof event === 'object' && event !== null && typeof event.type === 'string' && isKnownTrigger(event.type);
}
