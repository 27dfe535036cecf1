/** The delivery envelope and trigger payload types (spec 6.1, 6.2): no Buffer, no Node module. */

/** Who decided a Trust Center access request (spec 6.2). */
export type DecidedBy = 'reviewer' | 'access_rule' | 'api_client';

/** Channel of a document access event (spec 2.10). */
export type AccessChannel = 'detail' | 'viewer' | 'download' | 'bulk_zip' | 'external_link';

/** `data` of each trigger named in spec 6.2. Triggers whose data the spec does not show carry an open object. */
export interface TriggerPayloads {
  'trustcenter.access_requested': { accessRequestId: string };
  'trustcenter.access_approved': { accessRequestId: string; visitorTokenId: string; decidedBy: DecidedBy };
  'trustcenter.access_rejected': { accessRequestId: string; decidedBy: DecidedBy };
  'trustcenter.resource_downloaded': {
    accessEventId: string;
    resourceId: string;
    visitorTokenId: string;
    channel: AccessChannel;
    watermarked: boolean;
    occurredAt: string;
  };
  'control.drift_detected': Record<string, unknown>;
  'vendor.rating_dropped': Record<string, unknown>;
  'sod.violation_detected': Record<string, unknown>;
}

export type TriggerName = keyof TriggerPayloads;

/** The body of a delivery (spec 6.1). `type` is the trigger that fired. */
export interface DeliveryEnvelope<T extends string = string> {
  id: string;
  type: T;
  apiVersion: string;
  createdAt: string;
  organizationId: string;
  data: T extends TriggerName ? TriggerPayloads[T] : Record<string, unknown>;
}

export type EnvelopeProblem =
  | 'invalid_json'
  | 'invalid_envelope'
  | 'delivery_id_mismatch'
  | 'event_type_mismatch';

export type EnvelopeHeaders = { deliveryId: string | undefined; event: string | undefined };

export type EnvelopeCheck =
  | { ok: true; envelope: DeliveryEnvelope; apiVersionKnown: boolean }
  | { ok: false; problem: EnvelopeProblem; message: string };
