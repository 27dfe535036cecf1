/** Types of the delivery envelope and trigger payloads (spec 6.1, 6.2) and the envelope check. */

/** The payload schema version the service currently sends (spec 6.1, 9.5). */
export const CURRENT_API_VERSION = '2026-06-01';

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

export type EnvelopeCheck =
  | { ok: true; envelope: DeliveryEnvelope; apiVersionKnown: boolean }
  | { ok: false; problem: EnvelopeProblem; message: string };

/**
 * The longest delivery id and trigger the receiver stores (UTF-16 code units). The service sends
 * UUIDs; the bound keeps every stored id reachable through the console's routes and the CLI.
 */
export const MAX_ID_LENGTH = 256;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Decodes a raw body for reading only: a leading BOM is skipped (RFC 8259 §8.1 lets a parser
 * ignore it) and invalid UTF-8 becomes U+FFFD. The raw bytes stay what is stored and relayed.
 */
export function decodeBodyLeniently(raw: Buffer): string {
  const start = raw.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  return raw.toString('utf8', start);
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses and checks a delivery body against spec 6.1 and the delivery headers.
 * Returns the envelope, or the first problem found with a message naming the field.
 * `headers.deliveryId` / `headers.event` are the `x-service-delivery` / `x-service-event` values.
 */
export function checkEnvelope(
  raw: Buffer,
  headers: { deliveryId: string | undefined; event: string | undefined },
): EnvelopeCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeBodyLeniently(raw));
  } catch (err) {
    return { ok: false, problem: 'invalid_json', message: `body is not valid JSON: ${(err as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, problem: 'invalid_envelope', message: 'body must be a JSON object' };
  }
  const body = parsed as Record<string, unknown>;
  for (const field of ['id', 'type', 'apiVersion', 'createdAt', 'organizationId'] as const) {
    const value = body[field];
    if (typeof value !== 'string' || value.length === 0) {
      return { ok: false, problem: 'invalid_envelope', message: `envelope field "${field}" must be a non-empty string` };
    }
  }
  for (const field of ['id', 'type'] as const) {
    const length = (body[field] as string).length;
    if (length > MAX_ID_LENGTH) {
      return { ok: false, problem: 'invalid_envelope', message: `envelope field "${field}" is ${length} characters long; hookrelay accepts at most ${MAX_ID_LENGTH}` };
    }
  }
  if (!ISO_DATE_TIME.test(body.createdAt as string) || Number.isNaN(Date.parse(body.createdAt as string))) {
    return { ok: false, problem: 'invalid_envelope', message: 'envelope field "createdAt" must be an RFC 3339 date-time' };
  }
  const data = body.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, problem: 'invalid_envelope', message: 'envelope field "data" must be a JSON object' };
  }
  if (headers.deliveryId !== body.id) {
    return {
      ok: false,
      problem: 'delivery_id_mismatch',
      message: headers.deliveryId === undefined
        ? 'header x-service-delivery is missing (it must equal the body "id")'
        : 'header x-service-delivery does not equal the body "id"',
    };
  }
  if (headers.event !== body.type) {
    return {
      ok: false,
      problem: 'event_type_mismatch',
      message: headers.event === undefined
        ? 'header x-service-event is missing (it must equal the body "type")'
        : 'header x-service-event does not equal the body "type"',
    };
  }
  const envelope = body as unknown as DeliveryEnvelope;
  return { ok: true, envelope, apiVersionKnown: envelope.apiVersion === CURRENT_API_VERSION };
}
