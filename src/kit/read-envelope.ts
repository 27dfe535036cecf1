/**
 * The envelope check of spec 6.1 for the adapters: the body decoded without Buffer (browsers and
 * Workers have none), then the core's one check (src/core/envelope-check.ts), in the receiver's
 * words and codes.
 */
import { checkEnvelopeText, CURRENT_API_VERSION } from '../core/envelope-check.js';
import type { EnvelopeCheck } from '../core/envelope-types.js';

export { CURRENT_API_VERSION };

export type EnvelopeRead = EnvelopeCheck;

// A leading BOM is skipped (RFC 8259 §8.1 lets a parser ignore it); invalid UTF-8 becomes U+FFFD.
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

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
  return checkEnvelopeText(decodeLeniently(raw), headers);
}
