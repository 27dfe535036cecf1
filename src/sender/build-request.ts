/** The delivery request of spec 6.1: the body, serialised once, and the headers of each attempt. */
import { TIME_SCALE_MARK_HEADER } from '../core/conformance/time-scale-mark.js';
import { CURRENT_API_VERSION, decodeBodyLeniently } from '../core/envelope.js';
import { SIGNATURE_HEADER_NAME } from '../core/signature/signature-header.js';

/** A delivery ready to send: its body bytes never change between attempts (spec 6.1, 6.4 rule 6). */
export interface OutgoingDelivery {
  id: string;
  trigger: string;
  apiVersion: string;
  body: Buffer;
  /** The parsed body, for the Delivery record's `payload`. */
  payload: Record<string, unknown>;
}

export interface EnvelopeInit {
  id: string;
  trigger: string;
  organizationId: string;
  createdAtMs: number;
  data: Record<string, unknown>;
}

/** Builds the body `{id, type, apiVersion, createdAt, organizationId, data}` (spec 6.1) and serialises it once. */
export function buildDelivery(init: EnvelopeInit): OutgoingDelivery {
  const payload = {
    id: init.id,
    type: init.trigger,
    apiVersion: CURRENT_API_VERSION,
    createdAt: new Date(init.createdAtMs).toISOString(),
    organizationId: init.organizationId,
    data: init.data,
  };
  return { id: init.id, trigger: init.trigger, apiVersion: CURRENT_API_VERSION, body: Buffer.from(JSON.stringify(payload), 'utf8'), payload };
}

// Visible ASCII and spaces: what every receiver can take in a header value.
const HEADER_SAFE = /^[\x20-\x7e]{1,1024}$/;

export type PayloadFileCheck = { ok: true; delivery: OutgoingDelivery } | { ok: false; reason: string };

/**
 * A delivery whose body is the given bytes, sent unchanged (no re-serialisation). The body must
 * be a JSON object with a string `id` (it becomes x-service-delivery, spec 6.1); its `type`, when
 * a string, becomes x-service-event, else `fallbackTrigger`. Refuses anything else with a reason.
 */
export function deliveryFromRawBody(raw: Buffer, fallbackTrigger: string): PayloadFileCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeBodyLeniently(raw));
  } catch (err) {
    return { ok: false, reason: `the payload is not valid JSON (${(err as Error).message})` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, reason: 'the payload must be a JSON object' };
  const body = parsed as Record<string, unknown>;
  if (typeof body.id !== 'string' || body.id.length === 0) {
    return { ok: false, reason: 'the payload needs a string "id": it is sent as x-service-delivery (spec 6.1)' };
  }
  const trigger = typeof body.type === 'string' && body.type.length > 0 ? body.type : fallbackTrigger;
  const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion.length > 0 ? body.apiVersion : CURRENT_API_VERSION;
  for (const [name, value] of [['id', body.id], ['type', trigger], ['apiVersion', apiVersion]] as const) {
    if (!HEADER_SAFE.test(value)) return { ok: false, reason: `the payload's "${name}" has characters an HTTP header cannot carry` };
  }
  return { ok: true, delivery: { id: body.id, trigger, apiVersion, body: raw, payload: body } };
}

/**
 * Headers of one attempt, in the order of the spec 6.1 table. `signature` is the
 * x-service-signature value of this attempt, or null when signing is off. A run whose waits are
 * scaled (`timeScale` ≠ 1) adds `x-hookrelay-time-scale`, so `check` and the console judge its waits
 * at that scale (the service never sends it); a real-time run sends exactly the spec's headers.
 */
export function attemptHeaders(delivery: OutgoingDelivery, attemptNumber: number, signature: string | null, timeScale = 1): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhook/1',
    'x-service-event': delivery.trigger,
    'x-service-delivery': delivery.id,
    'x-service-delivery-attempt': String(attemptNumber),
    'x-service-api-version': delivery.apiVersion,
  };
  if (signature !== null) headers[SIGNATURE_HEADER_NAME] = signature;
  if (timeScale !== 1) headers[TIME_SCALE_MARK_HEADER] = String(timeScale);
  return headers;
}
