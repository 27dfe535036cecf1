/**
 * The envelope check of spec 6.1: the one the receiver and every kit adapter run, and the one
 * lenient decoding of a body for reading. No Buffer and no Node module: the kit's hookrelay/fetch
 * runs this in browsers and Workers.
 */
import type { DeliveryEnvelope, EnvelopeCheck, EnvelopeHeaders } from './envelope-types.js';
import { MAX_ID_LENGTH } from './limits.js';

/** The payload schema version the service currently sends (spec 6.1, 9.5). */
export const CURRENT_API_VERSION = '2026-06-01';

export { MAX_ID_LENGTH };

/** An id or trigger as an attempt record keeps it: at most MAX_ID_LENGTH, so a hostile header cannot bloat the store. */
export const cappedId = (text: string): string => (text.length > MAX_ID_LENGTH ? text.slice(0, MAX_ID_LENGTH) : text);
// A leading BOM is skipped (RFC 8259 §8.1 lets a parser ignore it); invalid UTF-8 becomes U+FFFD.
const LENIENT_UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/** Decodes a raw body for reading only: a leading BOM skipped, invalid UTF-8 as U+FFFD. The raw bytes stay what is stored and relayed. */
export function decodeBodyLeniently(raw: Uint8Array): string {
  return LENIENT_UTF8.decode(raw);
}

/**
 * Parses and checks a delivery body against spec 6.1 and the delivery headers.
 * Returns the envelope, or the first problem found with a message naming the field; never throws.
 * `headers.deliveryId` / `headers.event` are the `x-service-delivery` / `x-service-event` values.
 */
export function checkEnvelope(raw: Uint8Array, headers: EnvelopeHeaders): EnvelopeCheck {
  return checkEnvelopeText(decodeBodyLeniently(raw), headers);
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** As checkEnvelope, on a body already decoded. */
export function checkEnvelopeText(text: string, headers: EnvelopeHeaders): EnvelopeCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
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
