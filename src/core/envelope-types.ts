/**
 * The delivery envelope and trigger payload types (spec 6.1, 6.2): no Buffer, no Node module. The
 * fields of each trigger's `data` and of the envelope are generated from the JSON Schemas
 * (schemas/payload-types.ts, by scripts/gen-trigger-types.mjs).
 */
import type { EnvelopeFields, TriggerPayloads } from './schemas/payload-types.js';

export type { AccessChannel, DecidedBy, EnvelopeFields, TriggerPayloads } from './schemas/payload-types.js';

export type TriggerName = keyof TriggerPayloads;

/** The body of a delivery (spec 6.1). `type` is the trigger that fired. */
export interface DeliveryEnvelope<T extends string = string> extends EnvelopeFields {
  type: T;
  data: T extends TriggerName ? TriggerPayloads[T] : Record<string, unknown>;
}

/** The envelope of each trigger of spec 6.2, discriminated on `type`: `switch (e.type)` narrows `data`. */
export type KnownEnvelope = { [T in TriggerName]: DeliveryEnvelope<T> }[TriggerName];

export type EnvelopeProblem =
  | 'invalid_json'
  | 'invalid_envelope'
  | 'delivery_id_mismatch'
  | 'event_type_mismatch';

export type EnvelopeHeaders = { deliveryId: string | undefined; event: string | undefined };

export type EnvelopeCheck =
  | { ok: true; envelope: DeliveryEnvelope; apiVersionKnown: boolean }
  | { ok: false; problem: EnvelopeProblem; message: string };
