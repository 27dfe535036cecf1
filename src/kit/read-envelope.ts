/**
 * The envelope check of spec 6.1 for the adapters: the core's one check and its decoding, portable
 * (src/core/envelope-check.ts: browsers and Workers have no Buffer), in the receiver's words and codes.
 */
import { checkEnvelope, CURRENT_API_VERSION } from '../core/envelope-check.js';
import type { EnvelopeCheck } from '../core/envelope-types.js';

export { CURRENT_API_VERSION };

export type EnvelopeRead = EnvelopeCheck;

/**
 * Parses and checks a delivery body against spec 6.1 and the delivery headers
 * (`x-service-delivery` / `x-service-event` values). Returns the envelope, or the first problem
 * with a message naming the field. Never throws.
 */
export function readEnvelope(raw: Uint8Array, headers: { deliveryId: string | undefined; event: string | undefined }): EnvelopeRead {
  return checkEnvelope(raw, headers);
}
