/**
 * The envelope check of spec 6.1 for the adapters: the body as JSON, its fields, and its agreement
 * with `x-service-delivery` and `x-service-event`, in the receiver's words and codes.
 *
 * Why not src/core/envelope.ts `checkEnvelope`: that module builds a Buffer when it loads, and
 * `hookrelay/fetch` runs where there is none (browsers, Workers). This is the same check on a
 * Uint8Array; test/kit/read-envelope.test.ts holds the two to the same verdicts and messages.
 * Once the core's check takes text, this file should shrink to the decoding.
 */
import type { DeliveryEnvelope } from '../core/envelope.js';
import type { EnvelopeProblem } from './errors.js';

/** As src/core/envelope.ts: the longest id and trigger the receiver stores; the schema version it knows. */
const MAX_ID_LENGTH = 256;
export const CURRENT_API_VERSION = '2026-06-01';

export type EnvelopeRead =
  | { ok: true; envelope: DeliveryEnvelope; apiVersionKnown: boolean }
  | { ok: false; problem: EnvelopeProblem; message: string };

// A leading BOM is skipped (RFC 8259 §8.1 lets a parser ignore it); invalid UTF-8 becomes U+FFFD.
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Decodes a raw body for reading only; the raw bytes stay what was verified. */
export function decodeLeniently(raw: Uint8Array): string {
  return decoder.decode(raw);
}

/**
 * Parses and checks a delivery body against spec 6.1 and the delivery headers
 * (`x-service-delivery` / `x-service-event` values). Returns the envelope, or the first problem
 * with a message naming the field. Never throws.
 */
export function readEnvelope(raw: Uint8Array, headers: { deliveryId: string | undefined; event: string | undefined }): EnvelopeRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeLeniently(raw));
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
